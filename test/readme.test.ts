import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

describe("the README", () => {
  it("gives the two set-up commands", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    assert.match(readme, /npm install && npm run demo/);
    assert.match(readme, /\nnpm test/);
  });

  it("has an agent example that runs and prints what it says", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## An agent with one tool"));
    const code = /```ts\n([\s\S]*?)```\n/.exec(section)![1]!;
    // Inside the package, so `import … from "statek"` resolves to this checkout; the `statek-source` export
    // condition picks its sources (test/package.test.ts runs the README's program against the built package).
    mkdirSync(join(root, ".tmp"), { recursive: true });
    const dir = mkdtempSync(join(root, ".tmp", "readme-"));
    try {
      writeFileSync(join(dir, "example.ts"), code);
      const output = execFileSync(process.execPath, ["--conditions=statek-source", join(dir, "example.ts")], { encoding: "utf8" });
      assert.equal(output.trim(), "DONE 5");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
