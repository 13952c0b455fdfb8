/**
 * Code shipped into the sandbox as source text (the guest bootstrap, its engines and factories, the codec) is
 * self-contained, and works in the form that ships: compiled by TypeScript as the package is built, not only
 * with Node's type stripping as the other tests run it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkGuestSources } from "../scripts/check-guest-sources.ts";
import { freeNames } from "../scripts/guest-free-names.ts";
import { transpileSources } from "./support/transpile-src.ts";

const names = (source: string) => [...freeNames(source).keys()];

describe("free names of a source", () => {
  it("are the names no declaration of the source binds", () => {
    assert.deepEqual(names("(function f(a, { b = c }) { var x; let y = z; return [a, b, x, y, f, arguments] })"), ["c", "z"]);
    assert.deepEqual(names("(() => { try { q() } catch (error) { error } for (const item of list) item.name; return { shorthand, [key]: 1, prop: 2 } })"), [
      "key", "list", "q", "shorthand",
    ]);
    assert.deepEqual(names("(function () { class K extends Base { #p = 1; m() { return this.#p + K.n } } label: for (;;) break label; return new.target })"), ["Base"]);
    assert.deepEqual(names("(function () { inner(); function inner() { return hoisted } var hoisted = 1; { let scoped = 1 } return scoped })"), ["scoped"]);
  });
});

describe("the guest sources", () => {
  it("name only the realm's built-ins, as Node runs them", async () => {
    const report = await checkGuestSources(join(import.meta.dirname, "..", "src"));
    assert.deepEqual(report.problems, []);
    assert.ok(report.factories.length >= 15, `found the factories: ${report.factories.join(", ")}`);
    assert.ok(report.engines.length >= 5, `found the engines: ${report.engines.join(", ")}`);
  });

  describe("compiled as the package ships them", () => {
    let out: string;
    before(() => {
      out = mkdtempSync(join(tmpdir(), "statek-shipped-"));
      transpileSources(out);
    });
    after(() => rmSync(out, { recursive: true, force: true }));

    it("name only the realm's built-ins", async () => {
      const report = await checkGuestSources(out, ".js");
      assert.deepEqual(report.problems, []);
      assert.ok(report.factories.length >= 15);
    });

    it("pass the workspace suite in the QuickJS sandbox", () => {
      writeFileSync(
        join(out, "shipped.test.js"),
        'import { createQuickJsExecutor, runWorkspaceSuite } from "./workspace/index.js";\nrunWorkspaceSuite({ name: "quickjs, compiled", executor: createQuickJsExecutor });\n',
      );
      // Without the parent runner's NODE_TEST_CONTEXT, the child reports as a runner of its own.
      const { NODE_TEST_CONTEXT: _parent, ...env } = process.env;
      const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", join(out, "shipped.test.js")], { encoding: "utf8", cwd: out, env });
      assert.equal(run.status, 0, `the compiled workspace suite failed:\n${(run.stdout + run.stderr).slice(-4000)}`);
      const passed = Number(/^# pass (\d+)$/m.exec(run.stdout)?.[1]);
      assert.ok(passed >= 100, `the compiled workspace suite ran (${passed} cases passed)`);
    });
  });
});
