/**
 * PostgreSQL-only cases (the conformance suite runs in test/store-conformance.test.ts): claim queries served
 * by the partial indexes, URLs and masked passwords, migrations racing, wake-up hints through LISTEN/NOTIFY
 * and the fallback when LISTEN hears nothing, lost connections as retryable errors, a partitioned client that
 * cannot commit after its lease moved, a worker frozen mid-commit whose idle transaction the server ends, and
 * event ids in commit order across connections.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { setTimeout as pause } from "node:timers/promises";
import { LeaseLostError } from "../../errors/lease-lost-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import { openStore } from "../open-store.ts";
import { sampleJob, sampleRecord } from "../store.suite.ts";
import { POSTGRES_URL, freshSchema, postgresSkipReason, rawPostgres, testPostgresStore } from "../../../test/support/postgres-server.ts";
import { startTcpProxy } from "../../../test/support/tcp-proxy.ts";
import { maskConnectionString } from "./postgres-config.ts";
import { breaksConnection, toPostgresStoreError } from "./postgres-errors.ts";
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, applyPostgresMigrations } from "./postgres-migrations.ts";
import { PostgresStatements, PostgresTransaction, type PostgresQueryable } from "./postgres-queries.ts";
import { PostgresStore, createPostgresStore } from "./postgres-store.ts";

const HOUR = 3_600_000;
const skip = postgresSkipReason() ?? false;

/** A port nobody listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 1));
    });
  });
}

/** `POSTGRES_URL` with another host port (the proxy's) or database. */
function urlWith(change: { port?: number; database?: string; password?: string }): string {
  const url = new URL(POSTGRES_URL!);
  if (change.port !== undefined) url.port = String(change.port);
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  if (change.password !== undefined) url.password = change.password;
  return url.toString();
}

describe("PostgresStore without a server", () => {
  it("masks the password wherever the URL is shown", () => {
    assert.equal(maskConnectionString("postgres://statek:s3cret@db:5432/app?schema=x"), "postgres://statek:***@db:5432/app?schema=x");
    assert.equal(maskConnectionString("postgres://db/app?password=s3cret"), "postgres://db/app?password=***");
    assert.equal(maskConnectionString("not a url s3cret"), "postgres://…");
  });

  it("refuses a bad configuration at once, without showing the password", () => {
    assert.throws(() => createPostgresStore({ connectionString: "postgres://u:s3cret@h/d", schema: "Bad-Name" }), /schema must be a lower-case SQL identifier/);
    assert.throws(() => createPostgresStore({ connectionString: "postgres://u:s3cret@h/d", poolSize: 0 }), /poolSize must be an integer ≥ 1/);
    assert.throws(() => createPostgresStore({ connectionString: "postgres://u:s3cret@h/d?pool_size=many" }), /pool_size must be a positive integer/);
    assert.throws(() => createPostgresStore({ connectionString: "mysql://u:s3cret@h/d" }), (error: Error) => {
      assert.match(error.message, /expected a postgres:\/\/ or postgresql:\/\/ URL, got mysql:\/\/u:\*\*\*@h\/d/);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    });
  });

  it("a server that cannot be reached is a retryable StoreError naming the URL with its password masked", async () => {
    const url = `postgres://statek:s3cret@127.0.0.1:${await closedPort()}/postgres`;
    await assert.rejects(openStore(url), (error: unknown) => {
      assert.ok(error instanceof StoreError, String(error));
      assert.equal(error.isRetryable, true);
      assert.match(error.message, /PostgreSQL at postgres:\/\/statek:\*\*\*@127\.0\.0\.1:\d+\/postgres: the connection was lost or could not be made/);
      assert.doesNotMatch(`${error.message} ${String(error.cause)}`, /s3cret/);
      return true;
    });
  });

  it("a session ended by the server's idle limits is a lost connection, retried", () => {
    for (const code of ["25P03", "57P05"]) {
      const ended = toPostgresStoreError(Object.assign(new Error("terminating connection due to idle timeout"), { code }), "postgres://db");
      assert.ok(ended instanceof StoreError && ended.isRetryable, code);
    }
    assert.ok(breaksConnection(Object.assign(new Error("idle in transaction"), { code: "25P03" })), "the connection is not reused");
  });
});

describe("PostgresStore", { skip }, () => {
  it("openStore opens a PostgreSQL store from a URL, with the schema and pool size it names", async () => {
    const schema = freshSchema();
    const store = await openStore(`${POSTGRES_URL}?schema=${schema}&pool_size=3`);
    assert.ok(store instanceof PostgresStore);
    assert.equal(store.schema, schema);
    assert.equal(store.dialect, "postgres");
    assert.equal(store.supportsMultipleProcesses, true);
    const job = sampleJob();
    await store.insertJob(job, [], []);
    const client = await rawPostgres();
    try {
      const { rows } = await client.query(`SELECT id FROM "${schema}".jobs`);
      assert.deepEqual(rows, [{ id: job.id }], "the tables are in the schema the URL named");
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("claims and nextClaim read the partial indexes, never a scan of the jobs, and lock with SKIP LOCKED", async () => {
    const store = testPostgresStore();
    const now = Date.now();
    await Promise.all(Array.from({ length: 2000 }, (_, index) =>
      store.insertJob(sampleJob({ status: index % 3 ? "SUSPENDED" : "DONE", wakeAt: index % 2 ? null : now + HOUR + index }), [], [])));
    await store.insertJob(sampleJob({ status: "READY" }), [], []);
    const client = await rawPostgres();
    try {
      await client.query(`ANALYZE "${store.schema}".jobs`);
      // The adapter's own queries, recorded as they are sent.
      const sent: Array<{ text: string; values: unknown[] }> = [];
      const recording: PostgresQueryable = {
        query: async (query, values) => {
          if (typeof query === "object") sent.push({ text: query.text, values: query.values ?? [] });
          return client.query(typeof query === "string" ? { text: query, values: values ?? [] } : query) as never;
        },
      };
      const transaction = new PostgresTransaction(recording, new PostgresStatements(store.schema), now);
      await client.query("BEGIN");
      await transaction.selectClaimable({ now, limit: 10 });
      await transaction.selectClaimable({ now, limit: 10, roles: ["assistant", "planner"] });
      await transaction.readNextClaim();
      await transaction.readNextClaim(["assistant"]);
      await client.query("ROLLBACK");
      assert.equal(sent.length, 6, "two claim queries with and without roles, nextClaim with and without");
      for (const { text, values } of sent) {
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
        const plan = JSON.stringify(rows[0]?.["QUERY PLAN"]);
        const indexes = text.includes("MIN(lease_until)") ? ["jobs_runnable", "jobs_wake_at", "jobs_lease_owner"]
          : [text.includes("IN ('READY'") ? "jobs_runnable" : "jobs_wake_at"];
        for (const index of indexes) assert.match(plan, new RegExp(`"Index Name":"${index}"`), `${text}\nuses ${index}: ${plan}`);
        assert.doesNotMatch(plan, /"Seq Scan"|"Node Type":"Sort"/, `no scan, no sort: ${plan}`);
        if (text.includes("FOR UPDATE")) assert.match(text, /FOR UPDATE SKIP LOCKED/);
      }
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("racing migrations of one schema apply each version once; a newer schema fails clearly", async () => {
    const schema = freshSchema();
    const stores = [1, 2, 3].map(() => createPostgresStore({ connectionString: POSTGRES_URL!, schema }));
    await Promise.all(stores.map((store) => store.migrate()));
    await Promise.all(stores.map((store) => store.close()));
    const client = await rawPostgres();
    try {
      const { rows } = await client.query(`SELECT version FROM "${schema}".statek_migrations ORDER BY version`);
      assert.deepEqual(rows.map((row) => Number(row["version"])), Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => index + 1));
      await client.query(`INSERT INTO "${schema}".statek_migrations (version, name, applied_at) VALUES (999, 'from the future', 0)`);
    } finally {
      await client.end();
    }
    const store = createPostgresStore({ connectionString: POSTGRES_URL!, schema });
    const expected = new RegExp(`schema ${schema} .* has schema version 999, .*up to ${POSTGRES_SCHEMA_VERSION}`);
    await assert.rejects(store.migrate(), expected);
    await assert.rejects(store.getJob("any"), expected, "every call fails the same way");
    await store.close();
  });

  it("upgrading a version-5 schema makes a job's variables versions of its turn then: it forks from there on", async () => {
    const schema = freshSchema();
    const client = await rawPostgres();
    try {
      await applyPostgresMigrations(client, { schema, where: "the test server", migrations: POSTGRES_MIGRATIONS.slice(0, 5) });
      await client.query(`INSERT INTO "${schema}".jobs (id, role, status, params, metadata, parent_id, created_at, updated_at, version, turns,
        pending_seq, history_length, exit_status, error, usage, state, wake_at, cell, lease_owner, lease_epoch, lease_until)
        VALUES ('old', 'assistant', 'DONE', '{}', '{}', NULL, 5, 6, 4, 2, NULL, 0, NULL, NULL, '{}', '{}', NULL, 0, NULL, 0, NULL)`);
      await client.query(`INSERT INTO "${schema}".job_variables (job_id, name, blob, position) VALUES ('old', 'x', '7', 0)`);
    } finally {
      await client.end();
    }
    const store = createPostgresStore({ connectionString: POSTGRES_URL!, schema });
    try {
      const fork = (turn: number) => ({ ...sampleJob({ turns: turn }), forkedFrom: { jobId: "old", turn } });
      await assert.rejects(store.insertFork({ job: fork(1), history: [], putVariables: [] }), /keeps its variables' versions from turn 2 on/);
      const atUpgrade = fork(2);
      await store.insertFork({ job: atUpgrade, history: [], putVariables: [] });
      assert.deepEqual(await store.getVariables(atUpgrade.id), [{ name: "x", blob: "7", position: 0 }]);
    } finally {
      await store.close();
    }
  });

  it("a commit in one store wakes a subscriber of another through LISTEN/NOTIFY", async () => {
    const writer = testPostgresStore();
    // A safety poll an hour long: any call below comes from a notification.
    const reader = createPostgresStore({ connectionString: POSTGRES_URL!, schema: writer.schema, pollIntervalMs: HOUR });
    await writer.migrate();
    let calls = 0;
    let called: () => void = () => undefined;
    const stop = reader.subscribeWakeups(() => {
      calls++;
      called();
    });
    const nextCall = () => new Promise<void>((resolve) => (called = resolve));
    try {
      await nextCall(); // the self-test's own notification
      assert.equal(reader.wakeupMode, "listen");
      const before = calls;
      const woken = nextCall();
      await writer.insertJob(sampleJob(), [], []);
      await woken;
      assert.equal(calls, before + 1);
    } finally {
      stop();
      await Promise.all([writer.close(), reader.close()]);
    }
  });

  it("a LISTEN that hears nothing (a transaction-mode pooler) is logged, and subscribers are polled instead", async () => {
    const logged: string[] = [];
    let fellBack: () => void = () => undefined;
    const loggedOnce = new Promise<void>((resolve) => (fellBack = resolve));
    // NOTIFY reaches only listeners of the same database: a listener on another database hears nothing.
    const store = testPostgresStore({
      listenConnectionString: urlWith({ database: "template1" }), pollIntervalMs: 400, listenTestTimeoutMs: 150,
      log: (message) => {
        logged.push(message);
        fellBack();
      },
    });
    await store.migrate();
    let calls = 0;
    let enough: () => void = () => undefined;
    const polled = new Promise<void>((resolve) => (enough = resolve));
    const stop = store.subscribeWakeups(() => {
      if (++calls === 10) enough();
    });
    try {
      await loggedOnce;
      calls = 0; // the calls made while the self-test ran do not count
      await polled;
      assert.equal(store.wakeupMode, "poll");
      assert.equal(logged.length, 1, logged.join("\n"));
      assert.match(logged[0]!, /LISTEN self-test heard nothing within 150 ms .*transaction-mode pooler.*falling back to polling every 20 ms/);
    } finally {
      stop();
      await store.close();
    }
  });

  it("a lost connection is a retryable StoreError, and the next call reconnects", async () => {
    const proxy = await startTcpProxy("127.0.0.1", Number(new URL(POSTGRES_URL!).port));
    const store = testPostgresStore({ connectionString: urlWith({ port: proxy.port }) });
    try {
      const job = sampleJob();
      await store.insertJob(job, [], []);
      proxy.cut();
      const isLost = (error: unknown) => error instanceof StoreError && error.isRetryable && /connection was lost or could not be made/.test(error.message);
      await assert.rejects(store.getJob(job.id), isLost);
      await assert.rejects(store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 } }), isLost);
      proxy.restore();
      await store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 } });
      assert.equal((await store.getJob(job.id))?.turns, 1, "the commit made after the partition landed once");
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it("a partitioned client cannot commit after its lease moved to another", async () => {
    const proxy = await startTcpProxy("127.0.0.1", Number(new URL(POSTGRES_URL!).port));
    const direct = testPostgresStore();
    const partitioned = createPostgresStore({ connectionString: urlWith({ port: proxy.port }), schema: direct.schema });
    try {
      const job = sampleJob({ status: "STARTED" });
      await direct.insertJob(job, [], []);
      const lease = await partitioned.claimJob(job.id, "worker-a", 300);
      assert.ok(lease);
      const fence = { owner: lease.owner, epoch: lease.epoch };
      await partitioned.appendJournal(job.id, fence, 0, [{ index: 0, data: "intent" }]);
      proxy.cut();
      await assert.rejects(partitioned.renewLease(job.id, fence, 300), (error: unknown) => StoreError.isTransient(error));
      // The other worker takes the job once the lease has expired by the database's clock.
      let taken = await direct.claimJob(job.id, "worker-b", HOUR);
      for (let tries = 0; taken === null && tries < 100; tries++) {
        await pause(25);
        taken = await direct.claimJob(job.id, "worker-b", HOUR);
      }
      assert.ok(taken, "the expired lease was taken over");
      proxy.restore();
      const lost = (error: unknown) => error instanceof LeaseLostError && error.currentOwner === "worker-b";
      await assert.rejects(partitioned.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], fence }), lost);
      await assert.rejects(partitioned.appendJournal(job.id, fence, 0, [{ index: 1, data: "late" }]), lost);
      assert.equal(await partitioned.renewLease(job.id, fence, HOUR), null, "the old holder cannot renew either");
      assert.deepEqual((await direct.getJournal(job.id))?.entries, [{ index: 0, data: "intent" }]);
      assert.equal((await direct.getJob(job.id))?.historyLength, 0);
    } finally {
      await Promise.all([direct.close(), partitioned.close()]);
      await proxy.close();
    }
  });

  it("a worker frozen in the middle of a commit keeps its job only until the server ends its idle transaction", { timeout: 30_000 }, async () => {
    const proxy = await startTcpProxy("127.0.0.1", Number(new URL(POSTGRES_URL!).port));
    const direct = testPostgresStore();
    const frozen = createPostgresStore({ connectionString: urlWith({ port: proxy.port }), schema: direct.schema, idleTransactionTimeoutMs: 300 });
    try {
      const job = sampleJob({ status: "STARTED" });
      await direct.insertJob(job, [], []);
      const lease = await frozen.claimJob(job.id, "worker-a", 300);
      assert.ok(lease);
      const fence = { owner: lease.owner, epoch: lease.epoch };
      // The commit locks the job's row, and then its process looks stopped to the server (SIGSTOP).
      const freezing = proxy.freezeAfter("job_history");
      const stuck = frozen.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], fence }).then(() => "committed", (error: unknown) => error);
      await freezing;
      // The claim waits on the row's lock until the server ends the frozen session; then the expired lease moves.
      const claimed = (async () => {
        for (;;) {
          const taken = await direct.claimJob(job.id, "worker-b", HOUR);
          if (taken) return taken;
          await pause(25);
        }
      })();
      const taken = await Promise.race([claimed, pause(10_000).then(() => null)]);
      assert.ok(taken, "another worker took the job over while the first stayed frozen");
      proxy.cut();
      const outcome = await stuck;
      assert.ok(StoreError.isTransient(outcome), `the frozen commit ends with a retryable error, not ${String(outcome)}`);
      proxy.restore();
      const lost = (error: unknown) => error instanceof LeaseLostError && error.currentOwner === "worker-b";
      await assert.rejects(frozen.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], fence }), lost);
      assert.equal((await direct.getJob(job.id))?.historyLength, 0, "nothing of the frozen commit landed");
    } finally {
      // The proxy first: its end closes the frozen session, so nothing waits on its locks.
      await proxy.close();
      await Promise.all([direct.close(), frozen.close()]);
    }
  });

  it("a row locked by a frozen worker holds up only the write that needs it: the store's other writes, lease renewals among them, go on", { timeout: 30_000 }, async () => {
    const proxy = await startTcpProxy("127.0.0.1", Number(new URL(POSTGRES_URL!).port));
    const direct = testPostgresStore({ lockTimeoutMs: 200 });
    const frozen = createPostgresStore({ connectionString: urlWith({ port: proxy.port }), schema: direct.schema, idleTransactionTimeoutMs: 60_000 });
    try {
      const locked = sampleJob({ status: "STARTED" });
      const other = sampleJob({ status: "STARTED" });
      await direct.insertJob(locked, [], []);
      await direct.insertJob(other, [], []);
      const frozenLease = await frozen.claimJob(locked.id, "worker-a", HOUR);
      const lease = await direct.claimJob(other.id, "worker-b", HOUR);
      assert.ok(frozenLease && lease);
      // Worker A's commit locks its job's row, then A looks stopped to the server (SIGSTOP) for longer than leases last.
      const freezing = proxy.freezeAfter("job_history");
      let frozenEnded = false;
      const stuck = frozen.commit({ id: locked.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], fence: { owner: frozenLease.owner, epoch: frozenLease.epoch } })
        .catch((error: unknown) => error)
        .finally(() => (frozenEnded = true));
      await freezing;
      // In B's process, a write that needs the locked row (a message pushed to A's job) and B's lease renewal go out together.
      const pushed = direct.commit({ id: locked.id, expectedVersion: 0, appendHistory: [sampleRecord(0)] }).then(() => "committed", (error: unknown) => error);
      const renewed = await Promise.race([direct.renewLease(other.id, { owner: lease.owner, epoch: lease.epoch }, HOUR), pause(10_000).then(() => "still waiting after 10 s")]);
      assert.ok(renewed !== null && typeof renewed === "object", `the renewal committed (${String(renewed)})`);
      assert.equal(frozenEnded, false, "while A stayed frozen, holding the row");
      const outcome = await pushed;
      assert.ok(StoreError.isTransient(outcome), `the write that needs the locked row fails retryably, not ${String(outcome)}`);
      assert.match(String(outcome), /lock/);
      proxy.cut();
      await stuck;
    } finally {
      await proxy.close();
      await Promise.all([direct.close(), frozen.close()]);
    }
  });

  it("event ids are handed out in commit order: a reader following afterId across connections misses none", async () => {
    const first = testPostgresStore();
    const second = createPostgresStore({ connectionString: POSTGRES_URL!, schema: first.schema });
    const reader = createPostgresStore({ connectionString: POSTGRES_URL!, schema: first.schema });
    const job = sampleJob();
    await first.insertJob(job, [], []);
    const batches = 40;
    const perBatch = 5;
    let writing = true;
    const write = async (store: typeof first, name: string) => {
      for (let batch = 0; batch < batches; batch++) {
        await Promise.all(Array.from({ length: perBatch }, (_, index) => store.appendEvents([{ jobId: job.id, kind: name, data: batch * perBatch + index }])));
      }
    };
    const seen: number[] = [];
    const follow = async () => {
      let afterId = 0;
      for (;;) {
        const stillWriting = writing;
        const events = await reader.readEvents({ afterId, limit: 1000 });
        for (const event of events) seen.push(event.id);
        afterId = events.at(-1)?.id ?? afterId;
        if (!stillWriting && events.length === 0) return;
      }
    };
    try {
      const following = follow();
      await Promise.all([write(first, "first"), write(second, "second")]);
      writing = false;
      await following;
      const all = await reader.readEvents({ limit: 10_000 });
      assert.equal(all.length, 1 + 2 * batches * perBatch, "the job's submit, then every event written");
      assert.deepEqual(seen, all.map((event) => event.id), "the follower saw every event, in id order, reading each once");
    } finally {
      await Promise.all([first.close(), second.close(), reader.close()]);
    }
  });
});
