import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
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

  it("has a worker and a client that run in two processes on one store", { timeout: 180_000 }, async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## A worker and a client"), readme.indexOf("## Documentation"));
    const files = [...section.matchAll(/```ts\n\/\/ ([\w.]+)[^\n]*\n([\s\S]*?)```\n/g)].map((match) => [match[1]!, match[2]!] as const);
    assert.deepEqual(files.map(([name]) => name), ["agents.ts", "worker.ts", "client.ts"]);
    mkdirSync(join(root, ".tmp"), { recursive: true });
    const dir = mkdtempSync(join(root, ".tmp", "readme-worker-"));
    const worker = (() => {
      for (const [name, code] of files) writeFileSync(join(dir, name), code);
      return spawn(process.execPath, ["--conditions=statek-source", join(dir, "worker.ts")], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    })();
    let workerOutput = "";
    worker.stdout.on("data", (chunk) => (workerOutput += chunk));
    worker.stderr.on("data", (chunk) => (workerOutput += chunk));
    const exited = new Promise<number | null>((resolve) => worker.on("exit", (code) => resolve(code)));
    try {
      const output = execFileSync(process.execPath, ["--conditions=statek-source", join(dir, "client.ts")], { cwd: dir, encoding: "utf8", timeout: 120_000 });
      assert.equal(output.trim(), "Hello, Ada!", workerOutput);
      worker.kill("SIGTERM");
      assert.equal(await exited, 0, workerOutput);
    } finally {
      worker.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
