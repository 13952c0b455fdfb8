/**
 * The published package, as a user gets it: `npm pack` a copy of this checkout (its
 * `prepack` builds `dist/`), install the tarball into an empty project with the pinned Node, and run there the
 * README's program as plain JavaScript, `npx statek --help`, the subpath entries, the store conformance suite
 * and a type check of the declarations. Every command's output is shown when it fails.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, relative } from "node:path";
import { after, before, describe, it } from "node:test";

const root = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};
const work = mkdtempSync(join(tmpdir(), "statek-package-"));
const source = join(work, "source");
const app = join(work, "app");
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * The environment of a user's shell with the pinned Node first on the PATH: nothing of the npm run that started
 * this test (its `npm_*` settings) and no `NODE_OPTIONS` (no `statek-source` condition, no loaders).
 */
const userEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== "NODE_OPTIONS" && key !== "NODE_TEST_CONTEXT"),
);
userEnv.PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);

interface Run {
  stdout: string;
  stderr: string;
}

/** Runs a command; a non-zero exit fails the test with the command, its directory and all it printed. */
function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: userEnv, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout, stderr });
      const code = typeof error.code === "number" ? `exit code ${error.code}` : String(error.code ?? error.message);
      reject(new Error(`\`${[command, ...args].join(" ")}\` in ${cwd} failed (${code})\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    });
  });
}

const node = (args: readonly string[], cwd = app) => run(process.execPath, args, cwd);

/** The README's "Use it in your project" program. */
function readmeProgram(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Use it in your project"));
  const code = /```js\n([\s\S]*?)```\n/.exec(section)?.[1];
  assert.ok(code, 'README.md has a ```js program under "## Use it in your project"');
  return code;
}

let tarball: string;
let packed: string[];

before(async () => {
  // A copy, so that packing (which builds dist/) never touches this checkout while other tests run from it.
  const skipped = new Set(["node_modules", ".git", "dist", ".tmp", "statek-data"]);
  cpSync(root, source, { recursive: true, filter: (path) => !skipped.has(relative(root, path).split(/[\\/]/)[0]!) });
  symlinkSync(join(root, "node_modules"), join(source, "node_modules"), "dir");
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], source);
  const [result] = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(work, basename(result!.filename));
  packed = result!.files.map((file) => file.path);
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "statek-user", private: true, version: "1.0.0" }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, `zod@${manifest.dependencies.zod}`], app);
}, { timeout: 300_000 });

describe("the package, installed from its tarball", { timeout: 300_000 }, () => {
  it("ships built JavaScript with declarations, every exported file, and no sources or tests", () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") {
        assert.ok(packed.includes(target.slice(2)), `${subpath} → ${target} is in the tarball`);
        continue;
      }
      assert.deepEqual(Object.keys(target), ["statek-source", "types", "default"], `${subpath}: the repository's condition first, then types, then default`);
      assert.ok(packed.includes(target.types!.slice(2)), `${subpath} types → ${target.types} is in the tarball`);
      assert.ok(packed.includes(target.default!.slice(2)), `${subpath} default → ${target.default} is in the tarball`);
    }
    assert.ok(packed.includes("bin/statek.js") && packed.includes("README.md"));
    const installed = JSON.parse(readFileSync(join(app, "node_modules", "statek", "package.json"), "utf8")) as { engines: unknown; bin: unknown };
    assert.deepEqual([installed.engines, installed.bin], [{ node: ">=22.13" }, { statek: "./bin/statek.js" }]);
    assert.deepEqual(packed.filter((path) => path.startsWith("src/") || /\.test\./.test(path)), [], "no sources, no tests");
    assert.deepEqual(packed.filter((path) => path.startsWith("dist/") && !/\.(?:js|d\.ts)$/.test(path)), [], "dist holds only JavaScript and declarations");
  });

  it("nothing under dist imports a TypeScript file", () => {
    const dist = join(app, "node_modules", "statek", "dist");
    const offenders: string[] = [];
    for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
      for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"'\n]+)["']/g)) {
        if (/^\.{1,2}\/.*\.(?:ts|mts|cts|tsx)$/.test(specifier!) && !specifier!.endsWith(".d.ts")) offenders.push(`${entry.name}: ${specifier}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it("runs the README's program as plain JavaScript", async () => {
    writeFileSync(join(app, "example.mjs"), readmeProgram());
    const { stdout } = await node(["example.mjs"]);
    assert.equal(stdout.trim(), "DONE 5");
  });

  it("npx statek --help and --version run the built CLI", async () => {
    const help = await run("npx", ["--no-install", "statek", "--help"], app);
    assert.match(help.stdout, /^Usage: statek <command> \[options\]\n/);
    assert.match(help.stdout, /\n {2}show +Show one job/);
    assert.equal((await run("npx", ["--no-install", "statek", "--version"], app)).stdout.trim(), manifest.version);
  });

  it("statek/testing, statek/store and statek/executor work; values persist across steps through the built guest runtime", async () => {
    writeFileSync(join(app, "subpaths.mjs"), [
      'import { Agent, tool } from "statek";',
      'import { runTestJob, scriptedModel } from "statek/testing";',
      'import { createSqliteStore, runStoreSuite } from "statek/store";',
      'import { createQuickJsExecutor, runWorkspaceSuite } from "statek/executor";',
      'import { z } from "zod";',
      'const twice = tool({ description: "Twice.", params: z.object({ n: z.number().describe("A number.") }), run: function twice({ n }) { return 2 * n; } });',
      "const model = scriptedModel([",
      '  "```ts\\nconst seen = new Map<number, Date>([[1, new Date(86400000)]]);\\nclass Box { constructor(public n: number) {} }\\nconst box = new Box(await twice(21));\\n```",',
      '  "```ts\\nexit([seen.get(1)!.getTime(), box.n, box instanceof Box])\\n```",',
      "]);",
      'const view = await runTestJob(new Agent({ role: "user", tools: [twice], model }), { statek: { executor: createQuickJsExecutor() } });',
      "console.log(JSON.stringify({ status: view.status, exit: view.exitStatus, types: [typeof runStoreSuite, typeof runWorkspaceSuite, typeof createSqliteStore] }));",
    ].join("\n"));
    const { stdout } = await node(["subpaths.mjs"]);
    assert.deepEqual(JSON.parse(stdout), { status: "DONE", exit: [86_400_000, 42, true], types: ["function", "function", "function"] });
  });

  it("a third-party store can run the conformance suite from statek/store", async () => {
    writeFileSync(join(app, "store.test.mjs"), [
      'import { createSqliteStore, runStoreSuite } from "statek/store";',
      'runStoreSuite({ name: "sqlite from the package", create: async () => createSqliteStore({ path: ":memory:" }) });',
    ].join("\n"));
    const { stdout } = await node(["--test", "--test-reporter=tap", "store.test.mjs"]);
    assert.match(stdout, /\n# fail 0\n/);
    assert.match(stdout, /\n# pass [1-9]\d*\n/);
  });

  it("its declarations type-check a TypeScript program that uses them, with the library's declarations checked too (no skipLibCheck)", async () => {
    const entries = Object.keys(manifest.exports).filter((entry) => entry !== "./package.json");
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        module: "nodenext", moduleResolution: "nodenext", target: "es2023", strict: true, noEmit: true,
        skipLibCheck: false, types: ["node"], typeRoots: [join(root, "node_modules", "@types")],
      },
      files: ["program.mts"],
    }));
    writeFileSync(join(app, "program.mts"), [
      'import { z } from "zod";',
      'import { Agent, tool, type JobView, type JobStatus } from "statek";',
      'import { runTestJob, scriptedModel, type ScriptedRequest } from "statek/testing";',
      'import { runStoreSuite, type Store } from "statek/store";',
      'import { createQuickJsExecutor, type Executor } from "statek/executor";',
      'const add = tool({ description: "Add.", params: z.object({ a: z.number().describe("A."), b: z.number().describe("B.") }), run: ({ a, b }) => a + b });',
      'const model = scriptedModel(["```ts\\nexit(add(1, 2))\\n```"]);',
      'const agent = new Agent({ role: "adder", tools: [add], model, chatStyle: "MARKDOWN", harness: { maxTurns: 3 } });',
      '// @ts-expect-error: "FANCY" is not a chat style (an unused directive fails the check if the types did not load)',
      'new Agent({ role: "x", chatStyle: "FANCY" });',
      "const view: JobView = await runTestJob(agent);",
      "const status: JobStatus = view.status;",
      "const requests: ScriptedRequest[] = model.requests;",
      "const executor: Executor = createQuickJsExecutor();",
      "const suite: (options: { name: string; create: () => Promise<Store> }) => void = runStoreSuite;",
      "export const used = [status, requests, executor, suite];",
      // Every entry point, so that all of the shipped declarations are part of the check.
      ...entries.map((entry, index) => `import * as entry${index} from "statek${entry.slice(1)}";`),
      `export const entries = [${entries.map((_, index) => `entry${index}`).join(", ")}];`,
    ].join("\n"));
    await node([join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"]);
  });
});
