/**
 * @module
 * Conformance cases: corrupt rows, damaged through the adapter's hook. A field that cannot be read fails only
 * when it is read, with a `CorruptRecordError` naming the job and the field; every other row and field stays
 * readable, and a write that replaces the field repairs it.
 */
import assert from "node:assert/strict";
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import type { JobRow } from "../store.ts";
import { insertSample, sampleJob, sampleRecord, type DamageTarget, type SuiteContext } from "./suite-context.ts";

/** Matches the error of a damaged field. */
const corrupt = (jobId: string, location: string) => (error: unknown) => {
  assert.ok(error instanceof CorruptRecordError, String(error));
  assert.equal(error.jobId, jobId);
  assert.equal(error.location, location);
  assert.match(error.message, new RegExp(`^job ${jobId}: the stored ${location.replace(/[[\]."]/g, "\\$&")} cannot be read`));
  return true;
};

/** Defines the corrupt-row cases. */
export function damageCases({ testDamage }: SuiteContext): void {
  testDamage("a corrupt job field fails only when read, and a commit repairs it", async (store, damage) => {
    const good = await insertSample(store, { createdAt: 1 });
    const bad = await insertSample(store, { createdAt: 2, status: "STARTED", params: { a: 1 }, turns: 3 });
    const fields = ["params", "status", "state", "turns", "wakeAt"] as const;
    const damaged: Array<(typeof fields)[number]> = [];
    for (const field of fields) if (await damage({ table: "jobs", jobId: bad.id, field })) damaged.push(field);
    assert.ok(damaged.length > 0, "the hook can damage some job field");

    const [listedBad, listedGood] = await store.listJobs();
    assert.deepEqual(listedGood, good, "the other job is untouched");
    const fetched = await store.getJob(bad.id);
    for (const row of [listedBad!, fetched!]) {
      assert.equal(row.id, bad.id);
      assert.equal(row.version, 0);
      assert.deepEqual(row.metadata, {});
      for (const field of damaged) assert.throws(() => row[field], corrupt(bad.id, `jobs.${field}`));
    }
    assert.throws(() => ({ ...fetched }), CorruptRecordError, "a corrupt row cannot be copied unnoticed");
    if (damaged.includes("status")) {
      assert.ok(await store.claimJob(bad.id, "worker", 60_000), "a job whose status cannot be read can still be claimed, to fail it");
    }

    const repair: Partial<JobRow> = { status: "FAILED", error: "corrupt", params: {}, state: {}, turns: 0, wakeAt: null };
    await store.commit({ id: bad.id, expectedVersion: 0, job: repair });
    const repaired = await store.getJob(bad.id);
    assert.deepEqual(repaired, { ...bad, ...repair, version: 1, updatedAt: repaired!.updatedAt });
  });

  testDamage("a corrupt history record, variable, journal entry, future or event fails only that field", async (store, damage) => {
    const job = sampleJob({ historyLength: 2, status: "STARTED" });
    await store.insertJob(job, [{ name: "x", blob: "1", position: 0 }, { name: "y", blob: "2", position: 1 }], [sampleRecord(0), sampleRecord(1)]);
    const lease = await store.claimJob(job.id, "worker", 60_000);
    assert.ok(lease);
    const fence = { owner: lease.owner, epoch: lease.epoch };
    await store.appendJournal(job.id, fence, 0, [{ index: 0, data: "ok" }, { index: 1, data: "to damage" }]);
    await store.createFutures(job.id, fence, [{ key: "k", jobId: job.id, kind: "external", wakeAt: null, data: null }]);
    await store.appendEvents([{ jobId: job.id, kind: "kept", data: 1 }, { jobId: job.id, kind: "damaged", data: 2 }]);
    const [, , damagedEvent] = await store.readEvents({ jobId: job.id });

    const checks: Array<{ target: DamageTarget; verify: () => Promise<void> }> = [
      {
        target: { table: "history", jobId: job.id, seq: 1 },
        verify: async () => {
          const history = await store.getHistory(job.id);
          assert.deepEqual(history[0], sampleRecord(0));
          assert.equal(history[1]!.kind, "console");
          assert.throws(() => history[1]!.data, corrupt(job.id, "history[1]"));
        },
      },
      {
        target: { table: "variables", jobId: job.id, name: "y" },
        verify: async () => {
          const [x, y] = await store.getVariables(job.id);
          assert.deepEqual(x, { name: "x", blob: "1", position: 0 });
          assert.equal(y!.name, "y");
          assert.throws(() => y!.blob, corrupt(job.id, 'variables["y"].blob'));
        },
      },
      {
        target: { table: "journal", jobId: job.id, index: 1 },
        verify: async () => {
          const journal = await store.getJournal(job.id);
          assert.deepEqual(journal?.entries[0], { index: 0, data: "ok" });
          assert.throws(() => journal?.entries[1]!.data, corrupt(job.id, "journal[1]"));
        },
      },
      {
        target: { table: "futures", key: "k", field: "value" },
        verify: async () => {
          const [listed] = await store.listFutures(job.id);
          assert.equal(listed!.state, "waiting");
          assert.throws(() => listed!.value, corrupt(job.id, 'futures["k"].value'));
        },
      },
      {
        target: { table: "events", id: damagedEvent!.id },
        verify: async () => {
          const [, kept, damaged] = await store.readEvents({ jobId: job.id });
          assert.deepEqual([kept!.kind, kept!.data], ["kept", 1]);
          assert.equal(damaged!.kind, "damaged");
          assert.throws(() => damaged!.data, corrupt(job.id, `events[${damagedEvent!.id}].data`));
        },
      },
    ];
    let verified = 0;
    for (const { target, verify } of checks) {
      if (!(await damage(target))) continue;
      await verify();
      verified++;
    }
    assert.ok(verified > 0, "the hook can damage some row");
    assert.deepEqual(await store.getJob(job.id), job, "the job itself stays readable");
  });

  testDamage("a future whose state cannot be read fails its settlement, not the store", async (store, damage) => {
    const job = await insertSample(store, { status: "STARTED" });
    await store.commit({ id: job.id, expectedVersion: 0, createFutures: [{ key: "bad", jobId: job.id, kind: "external", wakeAt: null, data: null }] });
    if (!(await damage({ table: "futures", key: "bad", field: "state" }))) return;
    await assert.rejects(store.settleFuture("bad", { state: "resolved", value: 1, door: "application" }), corrupt(job.id, 'futures["bad"].state'));
    assert.equal((await store.settleFuture("fine", { state: "resolved", value: 1, door: "application" })).settled, true);
  });
}
