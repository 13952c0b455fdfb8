import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, it } from "node:test";
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import { scriptedModel } from "../../models/scripted-model.ts";
import type { HistoryRow, JsonValue } from "../../store/store.ts";
import { Agent } from "../../agents/agent.ts";
import type { HistoryKind, HistoryRecordData } from "./history.ts";
import { HISTORY_VERSIONS, decodeHistory, decodeHistoryForView, decodeHistoryRecord, encodeHistoryRow } from "./history-codec.ts";
import { Statek } from "../statek.ts";

const root = mkdtempSync(join(tmpdir(), "statek-history-codec-"));
after(() => rmSync(root, { recursive: true, force: true }));
const ts = (code: string) => "```ts\n" + code + "\n```";

/** One record of every kind, as the runner writes them (optional fields included). */
const SAMPLES: { [K in HistoryKind]: HistoryRecordData[K] } = {
  submitted: { vars: [{ name: "user", type: "User" }], params: { locale: "de" }, warmup: [{ code: "let a = 1", hidden: true }] },
  "user-message": { text: "Move my meeting." },
  "model-response": {
    turn: 1, text: "```ts\nexit(1)\n```", code: "exit(1)",
    toolCalls: [{ id: "call-1", name: "find", args: { q: "x" }, providerOptions: { openai: { itemId: "fc_1" } } }],
    reasoning: [{ text: "thinking", providerOptions: { anthropic: { signature: "s" } } }],
    usage: { inputTokens: 10, cachedInputTokens: null, outputTokens: 5 }, cost: 0.001, model: "openai/gpt-5-mini",
    finishReason: "stop", parts: [{ type: "reasoning", index: 0 }, { type: "text", text: "hi" }, { type: "tool-call", index: 0 }],
  },
  "model-attempt": { turn: 1, attempt: 1, error: "ModelCallError: 503", retried: true, timedOut: false, durationMs: 12.5, model: "openai/gpt-5-mini" },
  console: { stream: "out", text: "hello" },
  "tool-call": { name: "find", origin: "code", args: '"x"', result: "[]", durationMs: 0.25 },
  variables: { put: ["a"], deleted: ["b"] },
  status: { status: "DONE", exitStatus: "1" },
  warmup: { block: 0, code: "let a = 1", hidden: false },
  dialog: { body: "Done.", media: "gen/chart.svg" },
  "post-processed": { processor: "FinalCheck", turn: 2, veto: "check first", draft: { text: "x", toolCalls: [] } },
  "error-handler": { name: "_release", outcome: "done", durationMs: 1 },
  "operator-action": { action: "resolve-future", by: "alice", target: "payment:7", note: "paid by phone", via: "web UI" },
  approval: { requestId: "job-1:0:3:approval", tool: "pay", args: "{ amount: 120 }", approved: false, note: "too much", by: "alice", decidedAt: 1_700_000_000_000 },
  "child-ended": { childId: "c-1", role: "researcher", status: "FAILED", reason: "harness: too many turns" },
  difficulty: { level: "H", from: "M" },
  reminder: { text: "Report the outcome before you finish." },
  "type-check": {
    part: "cell", outcome: "refused", more: 1, durationMs: 12.5,
    errors: [{ line: 3, column: 20, code: 2345, message: "Argument of type 'string' is not assignable to parameter of type 'Date'." }],
  },
};

const KINDS = Object.keys(SAMPLES) as HistoryKind[];
const stored = (seq: number, kind: string, data: JsonValue): HistoryRow => ({ seq, kind, at: 1_700_000_000_000 + seq, data });

/** Matches the codec's error for record `seq` of `kind`, with `detail` in its message. */
const corruptRecord = (seq: number, kind: string, detail: RegExp) => (error: unknown) => {
  assert.ok(error instanceof CorruptRecordError, String(error));
  assert.equal(error.jobId, "job-1");
  assert.equal(error.location, `history[${seq}] (${kind})`);
  assert.match(error.message, new RegExp(`^job job-1: the stored history\\[${seq}\\] \\(${kind}\\) cannot be read: `));
  assert.match(error.message, detail);
  return true;
};

describe("history codec", () => {
  it("writes every kind with its version and reads it back as it was written", () => {
    const rows = KINDS.map((kind, seq) => encodeHistoryRow(seq, kind, 1_000 + seq, SAMPLES[kind]));
    for (const [seq, row] of rows.entries()) {
      assert.equal((row.data as Record<string, JsonValue>)["v"], HISTORY_VERSIONS[KINDS[seq]!], "the version is written");
    }
    // Through JSON, as the store keeps them.
    const records = decodeHistory("job-1", JSON.parse(JSON.stringify(rows)));
    assert.deepEqual(records, KINDS.map((kind, seq) => ({ seq, kind, at: 1_000 + seq, data: SAMPLES[kind] })));
  });

  it("reads records written before versions existed as version 1", () => {
    const [record] = decodeHistory("job-1", [stored(0, "console", { stream: "err", text: "old" })]);
    assert.deepEqual(record, { seq: 0, kind: "console", at: 1_700_000_000_000, data: { stream: "err", text: "old" } });
  });

  it("keeps fields it does not know instead of dropping them", () => {
    const record = decodeHistoryRecord("job-1", stored(4, "dialog", { v: 1, body: "hi", channel: "sms" }));
    assert.deepEqual(record.data, { body: "hi", channel: "sms" });
  });

  it("refuses a record of a newer version, a bad version or an unknown kind, naming job, seq and kind", () => {
    assert.throws(() => decodeHistoryRecord("job-1", stored(3, "tool-call", { v: 2, name: "x" })),
      corruptRecord(3, "tool-call", /record version 2 was written by a newer STATEK \(this one reads tool-call records up to version 1\)/));
    assert.throws(() => decodeHistoryRecord("job-1", stored(3, "console", { v: "1", stream: "out", text: "" })), corruptRecord(3, "console", /bad version "1"/));
    assert.throws(() => decodeHistoryRecord("job-1", stored(5, "telepathy", { v: 1 })), corruptRecord(5, "telepathy", /unknown record kind "telepathy"/));
    assert.throws(() => decodeHistoryRecord("job-1", stored(6, "status", [1, 2])), corruptRecord(6, "status", /its data is not an object/));
  });

  it("refuses a record whose data does not have its kind's shape, naming the field", () => {
    const cases: Array<[string, JsonValue, RegExp]> = [
      ["tool-call", { name: "find", origin: "code", args: 42, durationMs: 1 }, /args: .*expected string/],
      ["console", { stream: "shout", text: "x" }, /stream: /],
      ["model-response", { ...SAMPLES["model-response"], toolCalls: [{ id: "c", name: "n", args: [] }] } as unknown as JsonValue, /toolCalls\.0\.args: /],
      ["submitted", { params: {} }, /vars: /],
      ["variables", { put: ["a"], deleted: [1] }, /deleted\.0: /],
    ];
    for (const [index, [kind, data, detail]] of cases.entries()) {
      assert.throws(() => decodeHistoryRecord("job-1", stored(index, kind, data)), corruptRecord(index, kind, detail));
    }
  });

  it("names kind and seq when the store could not read the record's data", () => {
    const row = stored(2, "console", null);
    Object.defineProperty(row, "data", { get: () => { throw new CorruptRecordError({ jobId: "job-1", location: "history[2]", cause: new Error("not JSON") }); } });
    assert.throws(() => decodeHistoryRecord("job-1", row), corruptRecord(2, "console", /not JSON/));
  });

  it("a view keeps an unreadable record in its place, its data throwing", () => {
    const rows = [stored(0, "console", { stream: "out", text: "ok" }), stored(1, "tool-call", { name: 1 }), stored(2, "console", { stream: "out", text: "after" })];
    const records = decodeHistoryForView("job-1", rows);
    assert.deepEqual(records.map((record) => [record.seq, record.kind]), [[0, "console"], [1, "tool-call"], [2, "console"]]);
    assert.throws(() => records[1]!.data, corruptRecord(1, "tool-call", /name: /));
    assert.equal(records[2]!.kind === "console" && records[2]!.data.text, "after");
  });

  it("a job whose stored record is malformed fails alone, saying which record, and stays readable", async () => {
    const path = join(root, "malformed.db");
    const agent = new Agent({ role: "stepper", model: scriptedModel([ts("console.log('one')"), ts("exit(2)")]) });
    const statek = await Statek.open({ store: path, agents: [agent], warmJobs: 0 }); // every step reads the store
    try {
      const [bad, good] = [(await statek.submitJob(agent)).id, (await statek.submitJob(agent)).id];
      await statek.step(bad); // commits the first reply: history[1] is a model-response
      const raw = new DatabaseSync(path);
      raw.prepare(`UPDATE job_history SET data = json_set(data, '$.toolCalls', 'none') WHERE job_id = ? AND kind = 'model-response'`).run(bad);
      raw.close();
      const failed = await statek.runJob(bad);
      assert.equal(failed.status, "FAILED");
      const seq = Number(/^job .*: the stored history\[(\d+)\] \(model-response\) cannot be read: toolCalls: .*expected array/.exec(failed.error ?? "")?.[1]);
      assert.ok(Number.isInteger(seq), failed.error ?? "");
      assert.equal(failed.history[seq]!.kind, "model-response");
      assert.throws(() => failed.history[seq]!.data, CorruptRecordError, "the record keeps its place in the view");
      assert.equal(failed.history.at(-1)?.kind, "status");
      const done = await statek.runJob(good);
      assert.deepEqual([done.status, done.exitStatus], ["DONE", 2], "the other job runs on");
    } finally {
      await statek.close();
    }
  });
});
