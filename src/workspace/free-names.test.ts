import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { freeNames } from "./free-names.ts";

describe("freeNames", () => {
  it("lists what code reads without declaring, in order of first use, and nothing the workspace provides", () => {
    assert.deepEqual(freeNames("const total = order.total * rate\nprint(total, JSON.stringify(order), Math.max(1, 2))"), ["order", "rate"]);
    assert.deepEqual(freeNames("result = x + alpha"), ["x", "alpha"], "an assignment at the top level declares");
    assert.deepEqual(freeNames("await sleep(10); exit(await until(new Date()))"), []);
  });

  it("ignores declarations in any scope, parameters, properties, labels and member names", () => {
    const code = [
      "function f(a, { b, c: [d] }, ...rest) { return a + b + d + rest.length + g }",
      "class K extends Base { m(x) { return this.y + x } static z = 1 }",
      "const { p = q, ...others } = source",
      "for (const item of items) outer: for (let i = 0; i < item.n; i++) { if (i) continue outer }",
      "try { risky() } catch (error) { console.log(error.message, { key: value, short }) }",
      "const obj = { [computed]: 1, plain: 2 }",
      "type T = { hidden: string }",
      "let typed: T = obj as T",
    ].join("\n");
    assert.deepEqual(freeNames(code), ["g", "Base", "q", "source", "items", "risky", "value", "short", "computed"]);
  });

  it("throws a SyntaxError for code it cannot read", () => {
    assert.throws(() => freeNames("const = 1"), SyntaxError);
  });
});
