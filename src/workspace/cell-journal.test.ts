import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CellHost, type JournalSink } from "./cell-host.ts";
import { JournalReplay, decodeJournalItem, hashMessage, type JournalItem } from "./cell-journal.ts";
import { CODE_START_OP } from "./guest/guest-protocol.ts";

/** A sink that keeps what was made durable, and can be made to fail. */
function memorySink(): JournalSink & { durable: JournalItem[]; appended: JournalItem[]; fail?: Error } {
  const sink = {
    durable: [] as JournalItem[],
    appended: [] as JournalItem[],
    fail: undefined as Error | undefined,
    append(items: readonly JournalItem[]) {
      sink.appended.push(...items);
    },
    async flush() {
      if (sink.fail) throw sink.fail;
      sink.durable = [...sink.appended];
    },
  };
  return sink;
}

describe("cell journal", () => {
  it("folds items into messages, results and deliveries", () => {
    const items: JournalItem[] = [
      { t: "msg", seq: 0, op: "get", h: hashMessage("get", ["1", "x"]), w: "calendar.x", r: "n3" },
      { t: "intent", seq: 1, op: "call", h: 7, w: "move(…)" },
      { t: "done", seq: 1, r: "p1" },
      { t: "settle", id: 1, r: "s moved" },
      { t: "deliver", ids: [1] },
      { t: "intent", seq: 2, op: "call", h: 9, w: "send(…)" },
    ];
    const replay = new JournalReplay(items);
    assert.equal(replay.nextMessage()?.reply, "n3");
    assert.equal(replay.nextMessage()?.reply, "p1");
    assert.deepEqual(replay.nextDelivery(), [{ id: 1, reply: "s moved" }]);
    const inDoubt = replay.nextMessage();
    assert.equal(inDoubt?.reply, undefined, "an intent without a result is in doubt");
    assert.equal(replay.replaying, false);
  });

  it("decodes stored items and refuses malformed ones, naming what is wrong", () => {
    assert.deepEqual(decodeJournalItem({ t: "deliver", ids: [1, 2] }), { t: "deliver", ids: [1, 2] });
    assert.throws(() => decodeJournalItem({ t: "msg", seq: -1, op: "get", h: 1, w: "x", r: "" }), /malformed journal item: seq is not a count/);
    assert.throws(() => decodeJournalItem({ t: "nope" }), /malformed journal item: unknown kind "nope"/);
    assert.throws(() => decodeJournalItem([]), /malformed journal item: not an object/);
  });

  it("cell host: a side effect's intent is durable before it runs and its result before the guest gets it", async () => {
    const sink = memorySink();
    const seen: number[] = [];
    const host = new CellHost((op) => {
      seen.push(sink.durable.length);
      return op === "call" ? "n42" : "";
    }, { maxTimers: 10, policy: { kind: (op) => (op === "call" ? "effect" : "read"), idempotent: () => false } });
    host.startCell({ sink });
    void host.receive(CODE_START_OP, []);
    const reply = await host.receive("call", ["1", "move"]);
    assert.equal(reply, "n42");
    assert.deepEqual(seen, [1], "the intent was durable when the call ran");
    assert.deepEqual(sink.durable.map((item) => item.t), ["intent", "done"]);
  });

  it("cell host: replays a journal without calling the host, then goes on live; an intent in doubt answers InDoubtError", async () => {
    const handled: string[] = [];
    const policy = { kind: (op: string) => (op === "call" ? ("effect" as const) : ("read" as const)), idempotent: () => false };
    const host = new CellHost((op, args) => {
      handled.push(`${op}:${args.join(",")}`);
      return "n1";
    }, { maxTimers: 10, policy });
    const journal: JournalItem[] = [
      { t: "msg", seq: 0, op: "get", h: hashMessage("get", ["1", "x"]), w: "calendar.x", r: "n5" },
      { t: "intent", seq: 1, op: "call", h: hashMessage("call", ["1", "move"]), w: "calendar.move(…)" },
    ];
    const sink = memorySink();
    host.startCell({ journal, sink });
    void host.receive(CODE_START_OP, []);
    assert.equal(host.receive("get", ["1", "x"]), "n5");
    const doubt = await host.receive("call", ["1", "move"]);
    assert.equal(doubt, 'e{"name":"InDoubtError","message":"calendar.move(…) was started but its worker stopped before it finished; it may or may not have taken effect"}');
    assert.deepEqual(handled, [], "the host was not called for what the journal holds");
    assert.equal(host.receive("get", ["1", "y"]), "n1", "live after the journal");
    assert.deepEqual(handled, ["get:1,y"]);
  });

  it("cell host: an idempotent call in doubt is made again; a divergence ends the cell", async () => {
    const calls: string[] = [];
    const host = new CellHost((op, args) => {
      calls.push(args[1]!);
      return "s paid";
    }, { maxTimers: 10, policy: { kind: () => "effect", idempotent: () => true } });
    host.startCell({ journal: [{ t: "intent", seq: 0, op: "call", h: hashMessage("call", ["1", "pay"]), w: "pay(…)" }], sink: memorySink() });
    void host.receive(CODE_START_OP, []);
    assert.equal(await host.receive("call", ["1", "pay"]), "s paid");
    assert.deepEqual(calls, ["pay"]);

    const diverging = new CellHost(() => "n1", { maxTimers: 10, describe: (_op, args) => `calendar.${args[1]}(…)` });
    diverging.startCell({ journal: [{ t: "msg", seq: 0, op: "call", h: hashMessage("call", ["1", "find"]), w: "calendar.find(…)", r: "n3" }] });
    void diverging.receive(CODE_START_OP, []);
    assert.match(String(diverging.receive("call", ["1", "move"])), /^e\{"name":"ReplayDivergence"/);
    assert.equal(diverging.divergence, "at call 1 the cell called calendar.move(…) but the journal recorded calendar.find(…)");
    assert.deepEqual(await diverging.idle({ ended: false }), { end: "finished" });
  });

  it("cell host: a cell replayed in a new VM gives every record of the journal once, however far the lost VM got", async () => {
    // The record of what the step gives its history, by the journal's effects and live calls.
    const records: string[] = [];
    const ledger = {
      current: undefined as number | undefined,
      // A live call's record goes into the step as it is made, and into the journal with its result.
      take: (seq: number) => ({ toolCalls: [`live ${seq}`] }),
      apply: (effects: readonly { toolCalls?: unknown[] }[]) => {
        for (const fx of effects) for (const call of fx.toolCalls ?? []) records.push(String(call));
      },
    };
    const policy = { kind: () => "effect" as const, idempotent: () => false };
    const journal: JournalItem[] = [
      { t: "intent", seq: 0, op: "call", h: hashMessage("call", ["1", "pay"]), w: "pay(…)" },
      { t: "done", seq: 0, r: "s paid 1", fx: { toolCalls: ["pay 1"] } },
      { t: "intent", seq: 1, op: "call", h: hashMessage("call", ["1", "note"]), w: "note(…)" },
      { t: "done", seq: 1, r: "s noted", fx: { toolCalls: ["note"] } },
    ];
    const live = (_op: string, args: readonly string[]) => {
      records.push(`live ${args[1]}`);
      return "s live";
    };
    const run = async (host: CellHost, ops: readonly string[]) => {
      void host.receive(CODE_START_OP, []);
      for (const op of ops) await host.receive("call", ["1", op]);
    };

    // The VM was lost before the cell started (its thread stalled): nothing was replayed, everything is given now.
    const notStarted = new CellHost(live, { maxTimers: 10, policy, effects: ledger });
    notStarted.startCell({ journal, sink: memorySink() });
    notStarted.replayCell();
    await run(notStarted, ["pay", "note", "send"]);
    assert.deepEqual(records, ["pay 1", "note", "live send"]);

    // The VM was lost after replaying the first call and making a third live: each record still once.
    records.length = 0;
    const halfway = new CellHost(live, { maxTimers: 10, policy, effects: ledger });
    halfway.startCell({ journal, sink: memorySink() });
    await run(halfway, ["pay"]);
    assert.deepEqual(records, ["pay 1"]);
    halfway.replayCell();
    await run(halfway, ["pay", "note", "send"]);
    halfway.replayCell();
    await run(halfway, ["pay", "note", "send"]);
    assert.deepEqual(records, ["pay 1", "note", "live send"]);

    // What an earlier commit holds (a suspension's) is never given again.
    records.length = 0;
    const resumed = new CellHost(live, { maxTimers: 10, policy, effects: ledger });
    resumed.startCell({ journal, committedItems: 2, sink: memorySink() });
    resumed.replayCell();
    await run(resumed, ["pay", "note"]);
    assert.deepEqual(records, ["note"]);
  });

  it("cell host: a journal that cannot be made durable stops the cell", async () => {
    const sink = memorySink();
    sink.fail = new Error("the lease moved");
    const host = new CellHost(() => "n1", { maxTimers: 10, policy: { kind: () => "effect", idempotent: () => false } });
    host.startCell({ sink });
    void host.receive(CODE_START_OP, []);
    assert.match(await host.receive("call", ["1", "move"]), /the job's record could not be written: the lease moved/);
    assert.equal(host.failure?.message, "the lease moved");
  });
});
