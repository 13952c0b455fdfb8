/**
 * Leases across real processes on one SQLite file: two processes claiming runnable jobs at the
 * same time never claim the same job, and a process whose lease was taken over by another cannot write — its
 * fenced journal append and commit fail with `LeaseLostError` and change nothing. Each process is a child
 * holding its own store, driven over stdio (`fixtures/store-process.ts`).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import { sampleJob, sampleRecord } from "../src/store/store.suite.ts";
import type { Lease } from "../src/store/store.ts";

const root = mkdtempSync(join(tmpdir(), "statek-store-processes-"));
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const HOUR = 3_600_000;

/** What a child answered: a value, or the name and message of what it threw. */
type Answer = { ok: true; value: unknown } | { ok: false; name: string; message: string };

/** A child process with its own store on `path`. */
class StoreProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<number, (answer: Answer) => void>();
  #next = 0;
  #stderr = "";

  constructor(path: string) {
    this.#child = spawn(process.execPath, [join(import.meta.dirname, "fixtures/store-process.ts"), path]);
    this.#child.stderr.on("data", (chunk) => (this.#stderr += String(chunk)));
    createInterface({ input: this.#child.stdout }).on("line", (line) => {
      const { id, ...answer } = JSON.parse(line) as Answer & { id: number };
      this.#waiting.get(id)?.(answer);
      this.#waiting.delete(id);
    });
    this.#child.on("exit", (code) => {
      for (const settle of this.#waiting.values()) settle({ ok: false, name: "Exit", message: `the child exited (${code}): ${this.#stderr}` });
    });
  }

  /** Calls a store method in the child. */
  ask(method: string, ...args: unknown[]): Promise<Answer> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#child.stdin.write(JSON.stringify({ id, method, args }) + "\n");
    });
  }

  /** Calls a store method in the child and returns its value, failing the test when it threw. */
  async call<T>(method: string, ...args: unknown[]): Promise<T> {
    const answer = await this.ask(method, ...args);
    if (!answer.ok) assert.fail(`${method} failed in the child: ${answer.name}: ${answer.message}`);
    return answer.value as T;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#child.once("exit", resolve));
    await this.ask("close");
    this.#child.stdin.end();
    await exited;
  }
}

describe("leases across processes on one SQLite file", () => {
  it("two processes claiming at the same time never claim the same job", async () => {
    const path = join(root, `claims-${++files}.db`);
    const parent = createSqliteStore({ path });
    const jobs = Array.from({ length: 600 }, (_, index) => sampleJob({ createdAt: index, status: index % 3 === 0 ? "STARTED" : "READY" }));
    await Promise.all(jobs.map((job) => parent.insertJob(job, [], [])));
    const workers = [new StoreProcess(path), new StoreProcess(path)];
    try {
      await Promise.all(workers.map((worker) => worker.call("migrate"))); // both open and ready before the race
      type Claims = { claimed: string[]; startedAt: number; endedAt: number };
      const [first, second] = await Promise.all(workers.map((worker, index) => worker.call<Claims>("claimAll", `worker-${index}`, HOUR, 1)));
      // SQLite's busy handler favours the process that holds the lock, so the split is often uneven; what matters
      // is that both were claiming at the same time.
      assert.ok(Math.max(first!.startedAt, second!.startedAt) < Math.min(first!.endedAt, second!.endedAt), "the two processes claimed at the same time");
      const all = [...first!.claimed, ...second!.claimed];
      assert.equal(new Set(all).size, all.length, "no job was claimed by both");
      assert.deepEqual(new Set(all), new Set(jobs.map((job) => job.id)), "every job was claimed");
      for (const [index, { claimed }] of [first!, second!].entries()) {
        for (const id of claimed.slice(0, 20)) assert.equal((await parent.getLease(id))?.owner, `worker-${index}`);
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await parent.close();
    }
  });

  it("a process whose lease was taken over by another cannot write", async () => {
    const path = join(root, `fencing-${++files}.db`);
    const parent = createSqliteStore({ path });
    const job = sampleJob({ status: "STARTED" });
    await parent.insertJob(job, [], []);
    const [stale, current] = [new StoreProcess(path), new StoreProcess(path)];
    try {
      const lost = await stale.call<Lease>("claimJob", job.id, "stale-worker", 0); // expires at once, as if the worker hung
      const fence = { owner: lost.owner, epoch: lost.epoch };
      await stale.call("appendJournal", job.id, fence, 0, [{ index: 0, data: { seq: 1, state: "intent" } }]);
      const taken = await current.call<Lease>("claimJob", job.id, "current-worker", HOUR);
      assert.equal(taken.epoch, lost.epoch + 1);

      const writes = [
        await stale.ask("appendJournal", job.id, fence, 0, [{ index: 1, data: { seq: 1, state: "done" } }]),
        await stale.ask("commit", { id: job.id, expectedVersion: 0, job: { status: "DONE" }, appendHistory: [sampleRecord(0)], fence }),
        await stale.ask("createFutures", job.id, fence, [{ key: "k", jobId: job.id, kind: "timer", wakeAt: 1, data: null }]),
      ];
      for (const answer of writes) {
        assert.equal(answer.ok, false);
        assert.ok(!answer.ok && answer.name === "LeaseLostError", JSON.stringify(answer));
        assert.match(!answer.ok ? answer.message : "", /the lease of stale-worker \(epoch 1\) was lost; current-worker holds the job now \(epoch 2\)/);
      }
      assert.equal(await stale.call("renewLease", job.id, fence, HOUR), null, "nor can it renew");

      assert.deepEqual(await parent.getJob(job.id), job, "the stale process changed nothing");
      assert.deepEqual(await parent.getJournal(job.id), { cell: 0, entries: [{ index: 0, data: { seq: 1, state: "intent" } }] });
      assert.equal(await parent.getFuture("k"), null);
      // The new holder replays the journal and commits.
      await current.call("commit", { id: job.id, expectedVersion: 0, job: { status: "DONE" }, clearJournal: true, fence: { owner: taken.owner, epoch: taken.epoch } });
      assert.equal((await parent.getJob(job.id))?.status, "DONE");
    } finally {
      await Promise.all([stale.close(), current.close()]);
      await parent.close();
    }
  });
});
