/**
 * The check of a journal append reads the journal's two ends, never the whole journal: a cell that makes
 * thousands of side-effecting calls appends twice per call, and each append must cost the same however long the
 * cell's journal already is.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import type { AdapterTransaction, StoredRow } from "./store-adapter.ts";
import { appendJournalIn } from "./store-writes.ts";

const FENCE = { owner: "worker", epoch: 1 };

/** A transaction over one job's journal held in memory; any adapter call besides these four throws. */
function journalTransaction(rows: Array<{ cell: number; idx: number }>) {
  const calls: string[] = [];
  const known: Partial<AdapterTransaction> = {
    lockJob: async (id: string) => ({ id, leaseOwner: FENCE.owner, leaseEpoch: FENCE.epoch, leaseUntil: Date.now() + 60_000 }),
    journalEnds: async (): Promise<StoredRow | undefined> => {
      if (!rows.length) return undefined;
      const first = rows[0]!;
      const last = rows.at(-1)!;
      return { firstIndex: first.idx, firstCell: first.cell, lastIndex: last.idx, lastCell: last.cell };
    },
    insertJournal: async (_jobId, cell, entries) => {
      for (const entry of entries) rows.push({ cell, idx: entry.index });
    },
    deleteJournal: async () => {
      rows.length = 0;
    },
  };
  const transaction = new Proxy(known, {
    get(target, name: string) {
      calls.push(name);
      const method = target[name as keyof AdapterTransaction];
      if (!method) throw new Error(`the append called ${name}`);
      return method;
    },
  }) as AdapterTransaction;
  return { transaction, calls };
}

describe("appendJournal's check", () => {
  it("reads only the journal's ends, however long it is", async () => {
    const rows: Array<{ cell: number; idx: number }> = [];
    const { transaction, calls } = journalTransaction(rows);
    for (let index = 0; index < 2_000; index++) await appendJournalIn(transaction, "job", FENCE, 7, [{ index, data: { t: "msg" } }]);
    assert.equal(rows.length, 2_000);
    assert.deepEqual(new Set(calls), new Set(["lockJob", "journalEnds", "insertJournal"]));
    assert.equal(calls.filter((name) => name === "journalEnds").length, 2_000, "one look at the ends per append");
  });

  it("replaces an earlier cell's journal and refuses an older cell", async () => {
    const rows = [{ cell: 3, idx: 0 }, { cell: 3, idx: 1 }];
    const { transaction } = journalTransaction(rows);
    await assert.rejects(appendJournalIn(transaction, "job", FENCE, 2, [{ index: 0, data: 1 }]), /cell 2 is older than the journal's cell 3/);
    await appendJournalIn(transaction, "job", FENCE, 4, [{ index: 0, data: 1 }]);
    assert.deepEqual(rows, [{ cell: 4, idx: 0 }]);
  });

  it("reports a journal that does not start at 0 in one cell as corrupt", async () => {
    for (const rows of [[{ cell: 3, idx: 1 }, { cell: 3, idx: 2 }], [{ cell: 2, idx: 0 }, { cell: 3, idx: 1 }]]) {
      const { transaction } = journalTransaction(rows);
      await assert.rejects(appendJournalIn(transaction, "job", FENCE, 3, [{ index: 2, data: 1 }]), (error) => {
        assert.ok(error instanceof CorruptRecordError);
        assert.match(error.message, /journal cannot be read.*not one cell numbered from 0/);
        return true;
      });
    }
  });
});
