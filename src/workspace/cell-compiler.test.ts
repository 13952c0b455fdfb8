import assert from "node:assert/strict";
import { describe, it } from "node:test";
import vm from "node:vm";
import { compileCell } from "./cell-compiler.ts";
import { MAX_COMPILED_CELLS } from "./compiled-cells.ts";

function scriptOf(code: string): string {
  const compiled = compileCell(code);
  if (compiled.kind !== "script") assert.fail(`expected a script, got ${JSON.stringify(compiled)}`);
  return compiled.script;
}

/**
 * Runs a compiled cell in a fresh `node:vm` context against a recording stand-in for the guest runtime's
 * `__statek`, and returns what the runtime saw.
 */
async function runCompiled(code: string, globals: Record<string, unknown> = {}) {
  const echoes: unknown[] = [];
  const definitions: Function[] = [];
  const declared: string[][] = [];
  let checks = 0;
  let body: Promise<unknown> | undefined;
  const context = vm.createContext({ ...globals, print: () => {}, exit: () => {}, console: { log: () => {} } });
  context.__statek = {
    echo: (value: unknown) => echoes.push(value),
    def: (fn: Function) => (definitions.push(fn), fn),
    declare: (names: string[]) => {
      declared.push(names);
      for (const name of names) if (!(name in context)) context[name] = undefined;
    },
    checkExit: () => void checks++,
    run: (run: () => Promise<unknown>) => {
      body = run();
    },
  };
  vm.runInContext(scriptOf(code), context);
  await body;
  // Values made in the context have its prototypes; copies compare with values made here.
  const copy = <T>(value: T): T => structuredClone(value);
  return { echoes: copy(echoes), definitions: definitions.map((fn) => fn.name), declared: copy(declared), checks: () => checks, context, copy };
}

describe("compileCell", () => {
  it("wraps the cell in an async body the runtime runs", () => {
    const script = scriptOf("1");
    assert.match(script, /^__statek\.run\(async \(\) => \{\n/);
    assert.match(script, /\}\);$/);
  });

  it("echoes each top-level expression statement, in order", async () => {
    const { echoes } = await runCompiled("1 + 1;\n'text';\n[1, 2];\n({ a: 1 });\nawait Promise.resolve(5)");
    assert.deepEqual(echoes, [2, "text", [1, 2], { a: 1 }, 5]);
  });

  it("does not echo assignments, updates, delete, void, print, exit or console calls", async () => {
    const { echoes } = await runCompiled(
      "let a = 1; a = 2; a += 1; a++; --a; const o = { k: 1 }; delete o.k; void 0; print(1); exit(); console.log(1); await print(2); a",
    );
    assert.deepEqual(echoes, [3]);
  });

  it("echoes a leading string statement but drops 'use strict'", async () => {
    assert.deepEqual((await runCompiled("'hello'\n'world'")).echoes, ["hello", "world"]);
    assert.deepEqual((await runCompiled("'use strict'\n1")).echoes, [1]);
  });

  it("does not echo expressions nested in blocks", async () => {
    assert.deepEqual((await runCompiled("if (true) { 1 }\nfor (const x of [1]) x\n{ 2 }")).echoes, []);
  });

  it("turns top-level declarations into globals", async () => {
    const { context } = await runCompiled("const c = 1; let l = 2; var v = 3; function f() { return 4 } class K {}; let empty");
    assert.deepEqual([context.c, context.l, context.v, typeof context.f, typeof context.K, "empty" in context], [1, 2, 3, "function", "function", true]);
    assert.equal(context.f(), 4);
  });

  it("hoists function declarations to the top of the cell", async () => {
    const script = scriptOf("const early = later()\nfunction later() { return 1 }");
    assert.ok(script.indexOf("later = __statek.def(function later") < script.indexOf("early ="), script);
    assert.equal((await runCompiled("const early = later()\nfunction later() { return 1 }")).context.early, 1);
  });

  it("marks top-level functions and classes as definitions", async () => {
    const { definitions } = await runCompiled(
      "function a() {}\nconst b = () => 1, c = function () {}, d = class {}\nclass E {}\nconst notMarked = [1].map(() => () => 1)[0]\nlet alsoNot = a",
    );
    assert.deepEqual(definitions.sort(), ["E", "a", "b", "c", "d"]);
  });

  it("flags classes with #private members", () => {
    const script = scriptOf("class A { #x = 1 }\nclass B { x = '#x' }\nconst C = class { #m() {} }");
    assert.match(script, /A = __statek\.def\(class A \{ #x = 1 \}, true\)/);
    assert.match(script, /B = __statek\.def\(class B \{ x = '#x' \}\)/);
    assert.match(script, /__statek\.def\(C, true\)/);
  });

  it("declares hoisted var names before the cell runs", async () => {
    const script = scriptOf("var x = x || 1\nfor (var i = 0; i < 2; i++) {}\nif (true) { var { y, z: [w] } = { y: 1, z: [2] } }");
    assert.ok(script.startsWith('__statek.declare(["x","i","y","w"]);\n'), script);
    const { context, declared } = await runCompiled("var x = x || 1\nfor (var i = 0; i < 2; i++) {}\nfor (var k in { p: 1 }) {}\nfor (var m of [7]) {}");
    assert.deepEqual(declared, [["x", "i", "k", "m"]]);
    assert.deepEqual([context.x, context.i, context.k, context.m], [1, 2, "p", 7]);
  });

  it("keeps var inside nested functions local, and unmarked inside blocks", async () => {
    const { context, definitions } = await runCompiled("function f() { var local = 1; return local }\nif (true) { var g = () => 1 }\nf()");
    assert.equal("local" in context, false);
    assert.equal(typeof context.g, "function");
    assert.deepEqual(definitions, ["f"], "g may close over its block");
  });

  it("rewrites destructuring declarations", async () => {
    const { context, copy } = await runCompiled("const { a, b: [c, ...rest], ...others } = { a: 1, b: [2, 3], d: 4 }");
    assert.deepEqual(copy([context.a, context.c, context.rest, context.others]), [1, 2, [3], { d: 4 }]);
  });

  it("starts every catch block with the exit check", async () => {
    const code = "try { throw 1 } catch (e) {}\nfunction f() { try { throw 2 } catch { return 3 } }\nconst g = () => { try { throw 4 } catch ({ x }) {} }\nf(); g()";
    const script = scriptOf(code);
    assert.equal(script.split("__statek.checkExit();").length - 1, 3, script);
    const { checks } = await runCompiled(code);
    assert.equal(checks(), 3);
  });

  it("strips types and transforms enums", async () => {
    const { context } = await runCompiled("enum Color { Red, Green = 'g' }\nconst n: number = 1 as number\ninterface I { x: number }");
    assert.deepEqual([context.Color.Red, context.Color.Green, context.n], [0, "g", 1]);
  });

  it("reports empty cells, syntax errors and refused syntax as results", () => {
    assert.deepEqual(compileCell(""), { kind: "empty" });
    assert.deepEqual(compileCell("// nothing\n/* here */"), { kind: "empty" });
    const syntax = compileCell("const = 1");
    assert.equal(syntax.kind, "error");
    assert.equal((syntax as { error: { name: string } }).error.name, "SyntaxError");
    assert.deepEqual(compileCell("import x from 'y'"), {
      kind: "error",
      error: { name: "SyntaxError", message: "import and export declarations are not available in the workspace (1:0)" },
    });
    assert.deepEqual(compileCell("const f = () => import('x')"), {
      kind: "error",
      error: { name: "SyntaxError", message: "import() is not available in the workspace" },
    });
  });

  it("enforces the size limits", () => {
    assert.deepEqual(compileCell("1234567890", { maxSourceBytes: 5 }), {
      kind: "error",
      error: { name: "RangeError", message: "the cell is too large (10 bytes; the limit is 5)" },
    });
    const nodes = compileCell("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", { maxSyntaxNodes: 5 });
    assert.equal(nodes.kind, "error");
    assert.match((nodes as { error: { message: string } }).error.message, /^the cell is too large \(\d+ syntax nodes; the limit is 5\)$/);
    assert.equal(compileCell("[1, 2, 3]", { maxSyntaxNodes: 5 }).kind, "script");
  });

  describe("memory of earlier compiles", () => {
    it("gives a repeated source the same, frozen result", () => {
      const source = "const memo1 = 1\nmemo1 + 1";
      const first = compileCell(source);
      assert.equal(first.kind, "script");
      assert.equal(compileCell(source), first);
      assert.ok(Object.isFrozen(first));
      // A caller cannot change what the next caller gets.
      assert.throws(() => { (first as { kind: string }).kind = "empty"; }, TypeError);
      const error = compileCell("const = memo");
      assert.ok(error.kind === "error" && Object.isFrozen(error.error));
    });

    it("gives the same result as a compile that remembers nothing", () => {
      // A source seen for the first time is compiled afresh: compare it with its second, remembered compile.
      const sources = ["let memo2: number = 2\nmemo2", "enum Memo3 { A }\nMemo3.A", "const = 3", "", "import x from 'memo4'"];
      for (const source of sources) {
        const fresh = structuredClone(compileCell(source));
        assert.deepEqual(compileCell(source), fresh);
      }
    });

    it("never shares a result between different size limits", () => {
      const source = "const memo5 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
      assert.equal(compileCell(source).kind, "script");
      const small = compileCell(source, { maxSyntaxNodes: 5 });
      assert.ok(small.kind === "error" && /syntax nodes/.test(small.error.message));
      const tiny = compileCell(source, { maxSourceBytes: 5 });
      assert.ok(tiny.kind === "error" && /bytes/.test(tiny.error.message));
      assert.equal(compileCell(source).kind, "script");
      // The other order: a refusal remembered first does not stop the same source under larger limits.
      const other = "const memo6 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
      assert.equal(compileCell(other, { maxSyntaxNodes: 5 }).kind, "error");
      assert.equal(compileCell(other, { maxSyntaxNodes: 20_000 }).kind, "script");
      // Limits spelled out at their defaults are the defaults.
      assert.equal(compileCell(other, { maxSourceBytes: 200_000, maxSyntaxNodes: 20_000 }), compileCell(other));
    });

    it("is bounded: the least recently used compile is forgotten", () => {
      const first = compileCell("memoFirst");
      const kept = compileCell("memoKept");
      for (let index = 0; index < MAX_COMPILED_CELLS; index++) {
        compileCell(`memoFiller${index}`);
        if (index % 100 === 0) compileCell("memoKept");
      }
      assert.notEqual(compileCell("memoFirst"), first);
      assert.deepEqual(compileCell("memoFirst"), first);
      assert.equal(compileCell("memoKept"), kept);
    });
  });

  it("refuses a cell nested too deeply for the type stripper, and compiles the next cells as before", () => {
    const deep = [`const a = ${"[".repeat(3_000)}${"]".repeat(3_000)}`, `${"(function () {".repeat(600)}${"})".repeat(600)}`];
    for (let round = 0; round < 3; round++) {
      for (const source of deep) assert.deepEqual(compileCell(source), { kind: "error", error: { name: "RangeError", message: "the cell is nested too deeply to compile" } });
      const typed = compileCell(`const n${round}: number = 1`);
      assert.equal(typed.kind, "script", `a typed cell after round ${round}: ${JSON.stringify(typed)}`);
    }
  });
});
