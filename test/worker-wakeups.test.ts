/**
 * How a worker learns that there is work, without scanning or polling the database: on PostgreSQL by
 * `LISTEN/NOTIFY` (the store's safety poll is set to an hour here, so nothing else can wake it), and an idle
 * worker sends no query at all between hints; on a SQLite file through `PRAGMA data_version`. The clients are
 * other store objects — other connections, as another process has.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import pg from "pg";
import { Agent, Statek, scriptedModel } from "../src/index.ts";
import { createPostgresStore } from "../src/store/postgres/postgres-store.ts";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";
import { POSTGRES_URL, freshSchema, postgresSkipReason } from "./support/postgres-server.ts";

const HOUR = 3_600_000;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves once job `id` is DONE in `store` (read on every wake-up hint the store hears, and once at first). */
function done(store: Store, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let stop: () => void = () => undefined;
    const look = () => {
      store.getJob(id).then((job) => {
        if (job?.status !== "DONE") return;
        stop();
        resolve();
      }, reject);
    };
    stop = store.subscribeWakeups(look);
    look();
  });
}

/** Counts the statements this process sends to PostgreSQL while `during` runs. */
async function statementsDuring(during: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  // Counting only: every pooled query and the listening connection go through it, and go on unchanged.
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [query] = args;
    sent.push(typeof query === "string" ? query : typeof query === "object" && query !== null && "text" in query ? String(query.text) : "?");
    return (original as (...parameters: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await during();
  } finally {
    pg.Client.prototype.query = original;
  }
  return sent;
}

const agent = (role: string) => new Agent({ role, model: scriptedModel(["```ts\nexit('woken')\n```"]) });

describe("worker wake-ups", () => {
  it("on PostgreSQL: an idle worker sends nothing between hints, and another store's submit wakes it by NOTIFY", { skip: postgresSkipReason() ?? false }, async () => {
    const schema = freshSchema();
    const waker = agent("listener");
    const statek = await Statek.open({ store: createPostgresStore({ connectionString: POSTGRES_URL!, schema, pollIntervalMs: HOUR }), agents: [waker] });
    const client = await Statek.open({ store: createPostgresStore({ connectionString: POSTGRES_URL!, schema }) });
    const worker = statek.worker({ eventRetentionMs: 0 });
    try {
      await worker.start();
      // The listener's self-test, and what its hint asks for, come first: the scheduler's look at once, the
      // checked futures' listing once their second between listings has passed.
      while ((statek.store as ReturnType<typeof createPostgresStore>).wakeupMode !== "listen") await pause(20);
      await pause(1_300);
      const idle = await statementsDuring(() => pause(1_500));
      assert.deepEqual(idle, [], "an idle worker sends no query while no hint comes");
      const { id } = await client.submitJob(waker);
      await done(client.store, id);
      assert.equal((await client.getJob(id))?.exitStatus, "woken");
    } finally {
      await worker.stop();
      await Promise.all([statek.close(), client.close()]);
    }
  });

  it("on a SQLite file: another store object's submit wakes the worker through data_version", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-wakeups-"));
    const path = join(dir, "statek.db");
    const waker = agent("listener");
    const statek = await Statek.open({ store: createSqliteStore({ path, pollIntervalMs: 5 }), agents: [waker] });
    const client = await Statek.open({ store: createSqliteStore({ path }) });
    const worker = statek.worker();
    try {
      await worker.start();
      const { id } = await client.submitJob(waker);
      await done(statek.store, id);
      assert.equal((await client.getJob(id))?.exitStatus, "woken");
    } finally {
      await worker.stop();
      await Promise.all([statek.close(), client.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses the per-reader poll settings the store's one subscription replaced, naming where they went", async () => {
    const statek = await Statek.open({ store: ":memory:" });
    try {
      assert.throws(() => statek.worker({ pollIntervalMs: 5 } as never), /worker: pollIntervalMs is not a worker option: .*createSqliteStore\(\{ path, pollIntervalMs \}\)/);
    } finally {
      await statek.close();
    }
  });
});
