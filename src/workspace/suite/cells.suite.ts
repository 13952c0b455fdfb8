/**
 * @module
 * Workspace suite, cells: compiling TypeScript, REPL-style declarations, echoes, the
 * console, `exit`, errors and limits.
 */
import assert from "node:assert/strict";
import { createCodec } from "../codec/codec.ts";
import type { SuiteContext } from "./harness.ts";

const decodeExit = (text: string | undefined) => {
  assert.ok(text !== undefined, "the cell should have called exit");
  return createCodec({}).decode(text);
};

export function cellCases({ test, session }: SuiteContext): void {
  test("cells: TypeScript types are stripped", async () => {
    const s = session();
    const result = await s.ok(
      "interface Point { x: number }\ntype Id = string;\nconst n: number = 41 as number;\n" +
        "function id<T>(value: T): T { return value }\nconst p: Point = { x: id<number>(1)! };\nn + p.x",
    );
    assert.deepEqual(result.texts("echo"), ["42"]);
    assert.equal(await s.output("print(id('a'), n, p.x)"), "a 41 1");
  });

  test("cells: enums and parameter properties are transformed", async () => {
    const s = session();
    await s.ok('enum Color { Red, Green = "g" }\nclass Box { constructor(public size: number) {} }\nconst box = new Box(3)');
    assert.equal(await s.output("print(Color.Red, Color.Green, Color[0], box.size, box instanceof Box)"), "0 g Red 3 true");
  });

  test("cells: top-level declarations become variables", async () => {
    const s = session();
    const first = await s.ok("const c = 1; let l = 2; var v = 3; function f() { return 4 } class K { five() { return 5 } }");
    assert.deepEqual(first.put.map((row) => row.name).sort(), ["K", "c", "f", "l", "v"]);
    assert.equal(await s.output("print(c, l, v, f(), new K().five())"), "1 2 3 4 5");
  });

  test("cells: function declarations are hoisted within the cell", async () => {
    const s = session();
    assert.equal(await s.output("print(later())\nfunction later() { return 'hoisted' }"), "hoisted");
  });

  test("cells: a later cell may redeclare a variable", async () => {
    const s = session();
    await s.ok("const x = 1; let y = 'a'");
    await s.ok("const x = 'two'; function y() { return 'fn' }");
    assert.equal(await s.output("print(x, y())"), "two fn");
  });

  test("cells: var in for loops and blocks persists", async () => {
    const s = session();
    await s.ok("for (var i = 0; i < 3; i++) {}\nfor (var k in { a: 1 }) {}\nfor (var w of [7, 8]) {}\nif (true) { var inBlock = 'b' }");
    assert.equal(await s.output("print(i, k, w, inBlock)"), "3 a 8 b");
  });

  test("cells: var is hoisted like in a script", async () => {
    const s = session();
    assert.equal(await s.output("var counter = counter || 10\ncounter"), "10");
    assert.equal(await s.output("var counter = counter || 10\ncounter += 1\ncounter"), "11");
  });

  test("cells: destructuring declarations bind every name", async () => {
    const s = session();
    await s.ok("const { a, b: [c, ...rest], d = 'dflt', ...others } = { a: 1, b: [2, 3, 4], e: 5, f: 6 }");
    assert.equal(await s.output("print(a, c, rest, d, others)"), '1 2 [3,4] dflt {e:5,f:6}');
  });

  test("cells: top-level await works", async () => {
    const s = session();
    const result = await s.ok("async function later(v) { return v * 2 }\nconst r = await later(21)\nawait Promise.resolve('done')");
    assert.deepEqual(result.texts("echo"), ["done"]);
    assert.equal(await s.output("r"), "42");
  });

  test("cells: expression statements are echoed in order", async () => {
    const s = session();
    const result = await s.ok("1 + 1;\n[1, 'x'];\n({ a: 1 });\nnull\ntrue");
    assert.deepEqual(result.lines, ["[echo] 2", '[echo] [1,"x"]', "[echo] {a:1}", "[echo] null", "[echo] true"]);
  });

  test("cells: assignments, print, console, exit, delete and void are not echoed", async () => {
    const s = session();
    const result = await s.ok(
      "let q = 1\nq = 2\nq += 1\nq++\nconst o = { z: 1 }\ndelete o.z\nvoid 0\nprint('p')\nconsole.log('l')\nq\nexit()",
    );
    assert.deepEqual(result.lines, ["[out] p", "[out] l", "[echo] 4"]);
  });

  test("cells: strings are echoed raw, nested strings quoted", async () => {
    const s = session();
    const result = await s.ok("'hello'\n\"world\";\n['a'];\n`t${1}`");
    assert.deepEqual(result.texts("echo"), ["hello", "world", '["a"]', "t1"]);
  });

  test("cells: undefined is not echoed", async () => {
    const s = session();
    const result = await s.ok("undefined;\n[1].forEach(() => 0)\nlet u\nu");
    assert.deepEqual(result.console, []);
  });

  test("cells: console.log and print join their arguments", async () => {
    const s = session();
    const result = await s.ok("console.log('a', 1, { b: 'c' }, [1, 'x'])\nprint('p', 2n, null, undefined)\nconsole.info('i')\nprint()");
    assert.deepEqual(result.lines, ['[out] a 1 {b:"c"} [1,"x"]', "[out] p 2n null undefined", "[out] i", "[out] "]);
  });

  test("cells: console.error and console.warn write the err stream", async () => {
    const s = session();
    const result = await s.ok("console.error('bad', 2)\nconsole.warn({ w: 1 })\nprint('fine')");
    assert.deepEqual(result.lines, ["[err] bad 2", "[err] {w:1}", "[out] fine"]);
    assert.equal(result.error, undefined);
  });

  test("cells: exit records its status and ends the cell", async () => {
    const s = session();
    const result = await s.run("const before = 1\nprint('a')\nexit({ ok: true, n: 2 })\nprint('b')\nconst after = 2");
    assert.equal(result.error, undefined);
    assert.deepEqual(result.lines, ["[out] a"]);
    assert.deepEqual(decodeExit(result.exitStatus), { ok: true, n: 2 });
    assert.equal(await s.output("print(before, typeof after)"), "1 undefined");
    const plain = await s.run("exit()");
    assert.equal(decodeExit(plain.exitStatus), undefined);
    const nested = await s.run("async function finish() { await null; exit('deep') }\nawait finish()\nprint('not reached')");
    assert.deepEqual(nested.console, []);
    assert.equal(decodeExit(nested.exitStatus), "deep");
    const none = await s.ok("1");
    assert.equal(none.exitStatus, undefined);
  });

  test("cells: exit inside try/catch still exits", async () => {
    const s = session();
    const result = await s.run(
      "try { exit(3) } catch (error) { print('caught', error) }\nprint('after')",
    );
    assert.deepEqual(result.lines, []);
    assert.equal(decodeExit(result.exitStatus), 3);
    const nested = await s.run(
      "function stop() { try { exit(4) } catch { print('inner') } }\n" +
        "async function run() { try { stop() } catch ({ message }) { print('middle', message) } }\n" +
        "try { await run() } catch (e) { print('outer') }\nprint('after')",
    );
    assert.deepEqual(nested.lines, []);
    assert.equal(nested.error, undefined);
    assert.equal(decodeExit(nested.exitStatus), 4);
    const stored = await s.run("stop()\nprint('after a stored function')");
    assert.deepEqual(stored.lines, []);
    assert.equal(decodeExit(stored.exitStatus), 4);
  });

  test("cells: try/catch still catches ordinary errors", async () => {
    const s = session();
    assert.equal(await s.output("try { null.x } catch (e) { print('caught', e.name) }\ntry { throw 1 } catch { print('bare') }"), "caught TypeError\nbare");
  });

  test("cells: empty or comment-only code is refused", async () => {
    const s = session();
    for (const code of ["", "   \n\t", "// only a comment", "/* block */\n// and line"]) {
      const result = await s.run(code);
      assert.equal(result.error, "Error: no code submitted.", JSON.stringify(code));
      assert.deepEqual(result.lines, ["[error] Error: no code submitted."]);
    }
  });

  test("cells: syntax errors are reported with a position", async () => {
    const s = session();
    await s.ok("const kept = 1");
    for (const code of ["const a = ;", "let x = {", "print('a'))", "const t: = 1"]) {
      const result = await s.run(code);
      assert.match(result.error ?? "", /^SyntaxError: .*\(\d+:\d+\)$/, code);
      assert.deepEqual(result.lines, [`[error] ${result.error}`]);
      assert.deepEqual(result.put, []);
    }
    assert.equal(await s.output("kept"), "1");
  });

  test("cells: import and export are refused", async () => {
    const s = session();
    const declaration = "SyntaxError: import and export declarations are not available in the workspace (1:0)";
    assert.equal((await s.run("import fs from 'node:fs'")).error, declaration);
    assert.equal((await s.run("export const q = 1")).error, declaration);
    const dynamic = "SyntaxError: import() is not available in the workspace";
    assert.equal((await s.run("await import('node:fs')")).error, dynamic);
    assert.equal((await s.run("async function load() { return import('node:fs') }")).error, dynamic);
    assert.equal((await s.run("print('not run'); const m = () => import('x')")).error, dynamic);
  });

  test("cells: exceptions print as Name: message", async () => {
    const s = session();
    const typeError = await s.run("const before = 1\nnull.x");
    assert.match(typeError.error ?? "", /^TypeError: \S/);
    assert.doesNotMatch(typeError.error ?? "", /\n|\bat\b.*:\d+/, "no stack trace");
    assert.equal(await s.output("before"), "1");
    const cases: Array<[string, string]> = [
      ["class MyError extends Error { constructor(m) { super(m); this.name = 'MyError' } }\nthrow new MyError('bad input')", "MyError: bad input"],
      ["throw new RangeError('too far')", "RangeError: too far"],
      ["throw 'boom'", 'Error: uncaught "boom"'],
      ["throw 42", "Error: uncaught 42"],
      ["throw { code: 1, why: 'x' }", 'Error: uncaught {code:1,why:"x"}'],
      ["throw { name: 'Custom', message: 'shaped like an error' }", "Custom: shaped like an error"],
      ["await Promise.reject(new TypeError('async'))", "TypeError: async"],
    ];
    for (const [code, expected] of cases) {
      const result = await s.run(code);
      assert.equal(result.error, expected, code);
      assert.deepEqual(result.lines.at(-1), `[error] ${expected}`);
    }
  });

  test("cells: output before an error is kept", async () => {
    const s = session();
    const result = await s.run("print('one')\n'two'\nthrow new Error('three')");
    assert.deepEqual(result.lines, ["[out] one", "[echo] two", "[error] Error: three"]);
  });

  test("cells: an infinite loop is stopped by the CPU time limit", async () => {
    const s = session({ limits: { cellTimeMs: 200 } });
    const started = performance.now();
    const result = await s.run("const before = 'kept'\nwhile (true) {}");
    assert.ok(performance.now() - started < 3_000, "stopped promptly");
    assert.match(result.error ?? "", /^TimeoutError: .*200 ms/);
    assert.equal(await s.output("before"), "kept");
    const again = await s.run("let spins = 'started'; for (;;) {}");
    assert.match(again.error ?? "", /^TimeoutError: /);
    assert.equal(await s.output("1 + 1"), "2");
  });

  test("cells: a cell awaiting a never-settling promise ends with an error", async () => {
    const s = session();
    const result = await s.run("print('waiting')\nawait new Promise(() => {})\nprint('never')");
    assert.match(result.error ?? "", /^Error: .*never settle/);
    assert.deepEqual(result.texts("out"), ["waiting"]);
    assert.equal(await s.output("'next'"), "next");
  });

  test("cells: console output is truncated past maxConsoleCharacters", async () => {
    const s = session({ limits: { maxConsoleCharacters: 100 } });
    const result = await s.run("print('a'.repeat(60))\nprint('b'.repeat(60))\nprint('c'.repeat(30))\nthrow new Error('e'.repeat(120))");
    assert.deepEqual(result.texts("out"), ["a".repeat(60), "b".repeat(40)]);
    assert.equal(result.error, `Error: ${"e".repeat(120)}`, "errors are never cut");
    assert.deepEqual(result.console.at(-1), { stream: "notice", text: "[… 50 characters truncated]" });
    const next = await s.ok("print('x'.repeat(100))");
    assert.deepEqual(next.lines, [`[out] ${"x".repeat(100)}`], "the budget is per step");
  });

  test("cells: the source size limit", async () => {
    const s = session({ limits: { maxSourceBytes: 100 } });
    const code = `print('ran')\n// ${"é".repeat(50)}`;
    const result = await s.run(code);
    assert.equal(result.error, `RangeError: the cell is too large (${Buffer.byteLength(code)} bytes; the limit is 100)`);
    assert.deepEqual(result.texts("out"), []);
    assert.equal(await s.output("'small'"), "small");
  });

  test("cells: the syntax node limit", async () => {
    const s = session({ limits: { maxSyntaxNodes: 50 } });
    const result = await s.run(`print('ran'); const big = [${Array.from({ length: 60 }, (_, i) => i).join(",")}]`);
    assert.match(result.error ?? "", /^RangeError: the cell is too large \(\d+ syntax nodes; the limit is 50\)$/);
    assert.deepEqual(result.texts("out"), []);
    assert.equal(await s.output("[1, 2, 3]"), "[1,2,3]");
  });
}
