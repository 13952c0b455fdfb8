import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { declaringCells, mayDeclare } from "./declaring-cells.ts";

describe("declaringCells", () => {
  it("keeps every cell that may declare a name at its top level", () => {
    for (const source of [
      "const a = 1", "let b: number = 2", "var c", "await using d = open()", "function f() {}", "async function g() {}",
      "class C {}", "abstract class D {}", "enum E { A }", "namespace N {}", "module M {}", "type T = string",
      "interface I { a: number }", "export const x = 1", "1\nconst late = 2",
    ]) assert.equal(mayDeclare(source), true, source);
  });

  it("keeps a cell whose keyword may be escaped, or sits in a string or a comment", () => {
    assert.equal(mayDeclare("\\u0063onst x = 1"), true);
    assert.equal(mayDeclare("print('a const')"), true);
    assert.equal(mayDeclare("// a type\n1"), true);
  });

  it("leaves out cells that declare nothing, in order, and returns the same array when none is left out", () => {
    assert.equal(mayDeclare("1"), false);
    assert.equal(mayDeclare("print(x.constant, typeof y, x.classList)"), false);
    assert.equal(mayDeclare("x.done = true\nawait notify(x)"), false);
    const cells = ["1", "const a = 1", "print(a)", "type T = 1"];
    assert.deepEqual(declaringCells(cells), ["const a = 1", "type T = 1"]);
    const all = ["const a = 1", "let b = 2"];
    assert.equal(declaringCells(all), all);
  });
});
