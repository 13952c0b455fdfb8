/**
 * Error paths of the step: a transient store failure — another connection holding the
 * SQLite lock — is waited out and never recorded as the job's failure; a row that cannot be read fails the job
 * through the one failure path, so its error handlers run. The locks are real: a second connection takes
 * SQLite's exclusive lock at the moment the step reaches the store, and lets go when the step's connection has
 * seen the real `SQLITE_BUSY` (`support/contended-sqlite.ts`). A durable wait's store calls are retried like the
 * step's, and past the retries they stop the step, never throw into agent code.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { StoreError } from "../src/errors/store-error.ts";
import { Agent } from "../src/agents/agent.ts";
import { Statek } from "../src/jobs/statek.ts";
import { scriptedModel } from "../src/models/scripted-model.ts";
import { errorHandler } from "../src/tools/error-handler.ts";
import { tool } from "../src/tools/tool.ts";
import { contendedSqliteStore } from "./support/contended-sqlite.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";

const root = mkdtempSync(join(tmpdir(), "statek-store-errors-"));
after(() => rmSync(root, { recursive: true, force: true }));

const ts = (code: string) => "```ts\n" + code + "\n```";

describe("transient store failures", () => {
  it("a busy store while the workspace opens is waited out, not recorded as a corrupt record", async () => {
    const contended = contendedSqliteStore({ mode: "rollback", when: (sql) => sql.includes("FROM job_variables"), busy: { times: 1 } });
    const agent = new Agent({ role: "counter", model: scriptedModel([ts("let n = 1"), ts("n += 1\nexit(n)")]) });
    const statek = await Statek.open({ store: contended.store, agents: [agent], warmJobs: 0 });
    try {
      const { id } = await statek.submitJob(agent);
      contended.arm();
      const view = await statek.runJob(id);
      assert.ok(contended.busy() >= 1, "the store was busy at least once");
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, 2);
    } finally {
      contended.release();
      await statek.close();
      contended.close();
    }
  });

  it("a busy store at commit is waited out", async () => {
    const contended = contendedSqliteStore({ mode: "wal", when: (sql) => sql === "BEGIN IMMEDIATE", busy: { times: 2 } });
    const agent = new Agent({ role: "committer", model: scriptedModel([ts("exit('committed')")]) });
    const statek = await Statek.open({ store: contended.store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      contended.arm();
      const view = await statek.runJob(id);
      assert.equal(contended.busy(), 2);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "committed");
    } finally {
      contended.release();
      await statek.close();
      contended.close();
    }
  });

  it("a store that stays busy rejects the step with a retryable StoreError and leaves the job as it was", async () => {
    const contended = contendedSqliteStore({ mode: "rollback", when: (sql) => sql.includes("FROM job_variables"), busy: { times: 1_000 } });
    const agent = new Agent({ role: "patient", model: scriptedModel([ts("let n = 1"), ts("exit(n)")]) });
    const statek = await Statek.open({ store: contended.store, agents: [agent], warmJobs: 0 });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.step(id);
      contended.arm();
      await assert.rejects(statek.step(id), (error: unknown) => {
        assert.ok(error instanceof StoreError, String(error));
        assert.equal(error.code, "SQLITE_BUSY");
        assert.equal(error.isRetryable, true);
        return true;
      });
      contended.release();
      const before = await statek.getJob(id);
      assert.equal(before?.status, "STARTED", "not FAILED");
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, 1);
    } finally {
      contended.release();
      await statek.close();
      contended.close();
    }
  });
});

describe("transient store failures never reach agent code", () => {
  /** A job that waits for a message: the store's read of the wait's row meets the lock. */
  const FUTURE_READ = (sql: string) => /^SELECT .* FROM futures WHERE key = \?$/.test(sql);

  it("a busy store while a wait reads its row is waited out: waitForMessage() yields the message, the model is asked once", async () => {
    const contended = contendedSqliteStore({ mode: "rollback", when: FUTURE_READ, busy: { times: 3 } });
    const model = scriptedModel([ts("const message = await waitForMessage()\nexit(message)"), ts("exit('asked again')")]);
    const agent = new Agent({ role: "listener", model });
    const statek = await Statek.open({ store: contended.store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.step(id); // the reply, committed
      await statek.pushMessage(id, "hello");
      contended.arm();
      const view = await statek.runJob(id);
      assert.equal(contended.busy(), 3, "the wait's reads met the lock");
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "hello");
      assert.equal(model.requests.length, 1, "the cell never saw the failure: the model was not asked again");
    } finally {
      contended.release();
      await statek.close();
      contended.close();
    }
  });

  it("a store that keeps failing while a wait reads its row stops the step, never the cell; the job resumes when the store is back", async () => {
    // A real store, whose reads of message waits fail as a lost connection does, for as long as the test says:
    // a real lock cannot fail one kind of read and let the step's other statements through.
    const inner = await openStore(join(root, "outage.db"));
    let down = false;
    const store: Store = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === "getFuture") {
          return (key: string) => down && key.includes(":message:")
            ? Promise.reject(new StoreError({ code: "ECONNRESET", message: "connection lost", isRetryable: true }))
            : target.getFuture(key);
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const model = scriptedModel([ts("let message\ntry { message = await waitForMessage() } catch (error) { message = 'caught ' + error.name }\nexit(message)"), ts("exit('asked again')")]);
    const agent = new Agent({ role: "listener", model });
    const statek = await Statek.open({ store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.step(id);
      await statek.pushMessage(id, "hello");
      down = true;
      await assert.rejects(statek.runJob(id), (error: unknown) => error instanceof StoreError && error.isRetryable);
      down = false;
      const row = await store.getJob(id);
      assert.equal(row?.status, "STARTED", "the job is as it was, to be stepped again");
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "hello", "agent code never caught the store's failure");
      assert.equal(model.requests.length, 1);
    } finally {
      await statek.close();
      await inner.close();
    }
  });
});

describe("every path to FAILED runs the job's error handlers", () => {
  it("a job whose stored status cannot be read fails, and its handlers run", async () => {
    const path = join(root, "corrupt.db");
    const runs: unknown[] = [];
    const release = errorHandler({ name: "_release", run: (context) => void runs.push(context) });
    const claim = tool({ name: "claim", description: "Claims a ticket.", params: z.object({ id: z.string().describe("id") }), errorHandler: release, run: ({ id }) => `claimed ${id}` });
    const agent = new Agent({ role: "claimer", tools: [claim], model: scriptedModel([ts("claim('T-1')"), ts("exit(1)")]) });
    const statek = await Statek.open({ store: path, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.step(id);
      await statek.step(id);
      const damage = new DatabaseSync(path);
      damage.prepare("UPDATE jobs SET status = 'MISLAID' WHERE id = ?").run(id);
      damage.close();
      const view = await statek.runJob(id);
      assert.equal(view.status, "FAILED");
      assert.match(view.error ?? "", /^job .*: the stored jobs\.status cannot be read: unknown status "MISLAID"$/);
      assert.deepEqual(runs, ["claimed T-1"]);
      assert.ok(view.history.some((record) => record.kind === "error-handler"), "the run is in the history");
    } finally {
      await statek.close();
    }
  });
});
