import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readCollectReport, writeCollectReport } from "./collect-report.ts";

describe("collect report", () => {
  it("reads back what the guest writes, texts as they are", () => {
    const collected = {
      texts: { a: '{"v":"line\\none \\"quoted\\""}', __proto__text: '{"v":1}', empty: "" },
      problems: [{ path: "a.b", reason: "a function" }],
      order: ["a", "__proto__text", "empty"],
      encoded: 3,
      regroup: false,
    };
    const read = readCollectReport(writeCollectReport(collected));
    assert.deepEqual({ ...read, texts: { ...read.texts } }, collected);
    const texts = readCollectReport('{"problems":[],"texts":[["__proto__",7],["b",2]]}\n{"v":1}[]').texts;
    assert.equal(texts.__proto__, '{"v":1}', "a variable named __proto__ is an own entry");
    assert.equal(texts.b, "[]");
  });

  it("refuses reports whose texts do not add up to the rest of it, naming what is wrong", () => {
    const cases: Array<[string, RegExp]> = [
      ['{"problems":[],"texts":[]}', /no header/],
      ["[]\n", /header is not an object/],
      ['{"problems":[],"texts":{}}\n', /not a list/],
      ['{"problems":{},"texts":[]}\n', /not a list/],
      ['{"problems":[],"texts":[["a",5]]}\nabc', /does not fit/],
      ['{"problems":[],"texts":[["a",-1]]}\nabc', /does not fit/],
      ['{"problems":[],"texts":[[1,1]]}\na', /does not fit/],
      ['{"problems":[],"texts":[["a",1.5]]}\nab', /does not fit/],
      ['{"problems":[],"texts":[["a",1],["a",1]]}\nab', /reported twice/],
      ['{"problems":[],"texts":[["a",1]]}\nabc', /2 characters follow/],
      ['{"problems":[],"texts":[' + "[".repeat(3000) + "]".repeat(3000) + "]}\n", /nested deeper/],
    ];
    for (const [report, message] of cases) assert.throws(() => readCollectReport(report), message, report.slice(0, 60));
  });
});
