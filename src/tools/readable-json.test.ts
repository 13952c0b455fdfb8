import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toReadableJson } from "./readable-json.ts";

class Meeting {
  title = "Standup";
}

describe("toReadableJson", () => {
  it("keeps plain data, writes dates as ISO strings and anything else as its readable form", () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const value = toReadableJson({
      n: 1, s: "x", b: true, z: null, big: 12n, nan: NaN, when: new Date(Date.UTC(2026, 0, 2)), list: [1, [2]], meeting: new Meeting(), cyclic, gone: undefined,
    });
    assert.deepEqual(value, {
      n: 1, s: "x", b: true, z: null, big: "12", nan: "NaN", when: "2026-01-02T00:00:00.000Z", list: [1, [2]], meeting: 'Meeting {title:"Standup"}',
      cyclic: { name: "loop", self: '{name:"loop",self:[Circular]}' },
    });
  });

  it("cuts long strings and long lists", () => {
    assert.equal((toReadableJson("a".repeat(20_000)) as string).length, 10_001);
    assert.equal((toReadableJson(Array.from({ length: 500 }, (_, index) => index)) as number[]).length, 100);
  });
});
