import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CellHost } from "./cell-host.ts";
import { CellRecord } from "./cell-record.ts";
import { CODE_START_OP } from "./guest/guest-protocol.ts";

describe("cell record", () => {
  it("replays the replies and deliveries it recorded, then goes live", () => {
    const record = new CellRecord();
    record.message("call", ["1", "find"], "n3");
    record.delivered([{ id: 1, reply: "s done" }]);
    record.message("print", ["out", "[\"x\"]"], "");
    record.rewind();
    assert.equal(record.replaying, true);
    assert.equal(record.replayMessage("call", ["1", "find"]), "n3");
    assert.deepEqual(record.replayIdle(), { deliver: [{ id: 1, reply: "s done" }] });
    assert.equal(record.replayMessage("print", ["out", "[\"x\"]"]), "");
    assert.equal(record.replaying, false, "the record is over: live from here");
  });

  it("names the first call that differs from the record", () => {
    const record = new CellRecord((op, args) => `calendar.${args[1]}(…)`);
    record.message("call", ["1", "find"], "n3");
    record.message("call", ["1", "find"], "n4");
    record.rewind();
    record.replayMessage("call", ["1", "find"]);
    assert.deepEqual(record.replayMessage("call", ["1", "move"]), {
      divergence: "at call 2 the cell called calendar.move(…) but the record holds calendar.find(…)",
    });
    assert.equal(record.replaying, false);
    const other = new CellRecord();
    other.message("call", ["1", "find"], "n3");
    other.rewind();
    assert.deepEqual(other.replayMessage("call", ["1", "find", "[2]"]), { divergence: "at call 1 the cell called call(…) but the record holds call(…)" }, "arguments count");
  });

  it("cell host: replays without calling the host again, and ends a diverging cell", async () => {
    const handled: string[] = [];
    const host = new CellHost((op, args) => {
      handled.push(`${op}:${args.join(",")}`);
      return op === "call" ? Promise.resolve("s later") : "n1";
    }, { maxTimers: 10 });
    host.startCell();
    host.receive(CODE_START_OP, []);
    assert.equal(host.receive("get", ["1", "x"]), "n1");
    const pending = host.receive("call", ["1", "slow"]);
    assert.match(pending, /^p\d+$/);
    assert.deepEqual(await host.idle({ ended: false }), { deliver: [{ id: Number(pending.slice(1)), reply: "s later" }] });
    assert.equal(handled.length, 2);

    host.replayCell();
    host.receive(CODE_START_OP, []);
    assert.equal(host.receive("get", ["1", "x"]), "n1");
    assert.equal(host.receive("call", ["1", "slow"]), pending, "the same pending id");
    assert.deepEqual(await host.idle({ ended: false }), { deliver: [{ id: Number(pending.slice(1)), reply: "s later" }] });
    assert.equal(handled.length, 2, "the host was not called again");
    assert.equal(host.receive("get", ["1", "y"]), "n1", "live after the record");
    assert.equal(handled.length, 3);

    host.replayCell();
    host.receive(CODE_START_OP, []);
    assert.match(host.receive("get", ["1", "z"]), /^e\{"name":"ReplayDivergence"/);
    assert.equal(host.divergence, "at call 1 the cell called get(…) but the record holds get(…)");
    assert.deepEqual(await host.idle({ ended: false }), { end: "finished" });
    host.endCell();
  });
});
