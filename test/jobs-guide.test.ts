/**
 * docs/jobs.md: every program followed by "Prints:" runs as its own process (`import … from "statek"` resolves
 * to the sources) and prints exactly what the guide says.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";

const root = join(import.meta.dirname, "..");
const guide = readFileSync(join(root, "docs", "jobs.md"), "utf8");
const run = promisify(execFile);

/** The `ts` blocks followed by a "Prints:" `text` block, with that text. */
function programs(markdown: string): Array<{ line: number; code: string; prints: string }> {
  const lines = markdown.split("\n");
  const found: Array<{ line: number; code: string; prints: string }> = [];
  let last: { line: number; code: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((line, index) => index > i && line === open[1]);
    assert.ok(end > i, `an unclosed fence at line ${i + 1}`);
    const body = lines.slice(i + 1, end).join("\n");
    if (open[2] === "ts") last = { line: i + 1, code: body };
    else if (open[2] === "text" && last && lines.slice(0, i).reverse().find((line) => line.trim())?.trim() === "Prints:") {
      found.push({ ...last, prints: body });
      last = undefined;
    }
    i = end;
  }
  return found;
}

mkdirSync(join(root, ".tmp"), { recursive: true });
const dir = mkdtempSync(join(root, ".tmp", "jobs-guide-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/jobs.md", () => {
  const found = programs(guide);
  it("has the approval and child-job programs", () => assert.ok(found.length >= 2, `${found.length} programs`));
  for (const example of found) {
    it(`the program at line ${example.line} prints what the guide says`, { timeout: 120_000 }, async () => {
      const file = join(dir, `example-${example.line}.ts`);
      writeFileSync(file, example.code);
      const { stdout } = await run(process.execPath, ["--conditions=statek-source", file], { encoding: "utf8" });
      assert.equal(stdout.trimEnd(), example.prints);
    });
  }
});
