/**
 * bench/postgres-claims: how soon a job submitted in one process is claimed by a worker in another, on
 * PostgreSQL. Two stores on one schema stand for the two processes (each has its own pool and connections):
 * the worker subscribes to wake-ups (`LISTEN/NOTIFY`) and calls `claimRunnable` on every hint; the submitter
 * inserts one job at a time and waits until it is claimed. Latency is from the moment `insertJob` is called
 * to the moment the worker's `claimRunnable` returned the job — "submit to first step" less the step itself.
 * Also printed: the latency of a `claimRunnable` call alone with 10,000 suspended jobs waiting.
 *
 * graphile-worker publishes 4.28 ms on average from submit to start on a desktop machine with a local
 * database; compare medians with care on a shared, loaded machine.
 *
 * Run: `node scripts/with-postgres.ts npm run bench -- postgres-claims` (a private server; set
 * WITH_POSTGRES_DURABLE=1 to keep fsync on), or with STATEK_TEST_POSTGRES naming a server.
 */
import { createPostgresStore } from "../src/store/postgres/postgres-store.ts";
import { sampleJob } from "../src/store/store.suite.ts";

const HOUR = 3_600_000;
const SUBMITS = 300;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const format = (values: number[]) =>
  `p50 ${percentile(values, 0.5).toFixed(2)} ms, p99 ${percentile(values, 0.99).toFixed(2)} ms, mean ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(2)} ms`;

export async function main(): Promise<void> {
  const url = process.env["STATEK_TEST_POSTGRES"];
  if (!url) {
    console.log("postgres-claims: no server (run `node scripts/with-postgres.ts npm run bench -- postgres-claims`)");
    return;
  }
  const schema = `bench_${Date.now()}`;
  const submitter = createPostgresStore({ connectionString: url, schema });
  const worker = createPostgresStore({ connectionString: url, schema, pollIntervalMs: HOUR });
  await submitter.migrate();
  await worker.migrate();

  // The worker: one claim pass per hint (coalesced), another right after a pass that found work.
  const claimedAt = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  let claiming = false;
  let again = false;
  const claimPass = async () => {
    if (claiming) return void (again = true);
    claiming = true;
    do {
      again = false;
      const leases = await worker.claimRunnable("bench-worker", HOUR, 10);
      const now = performance.now();
      for (const lease of leases) {
        claimedAt.set(lease.jobId, now);
        waiting.get(lease.jobId)?.();
      }
      if (leases.length) again = true;
    } while (again);
    claiming = false;
  };
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const stop = worker.subscribeWakeups(() => {
    listening();
    void claimPass();
  });
  await ready; // the first call comes once LISTEN works (or polling took over)
  console.log(`postgres-claims: wake-ups by ${worker.wakeupMode}`);

  const latencies: number[] = [];
  for (let index = 0; index < SUBMITS; index++) {
    const job = sampleJob({ createdAt: Date.now() });
    const claimed = new Promise<void>((resolve) => waiting.set(job.id, resolve));
    const start = performance.now();
    await submitter.insertJob(job, [], []);
    await claimed;
    latencies.push(claimedAt.get(job.id)! - start);
    waiting.delete(job.id);
  }
  stop();
  console.log(`postgres-claims: submit → claimed by another store, ${SUBMITS} jobs one at a time: ${format(latencies.slice(20))} (first 20 dropped as warm-up)`);

  const suspended = Array.from({ length: 10_000 }, (_, index) => sampleJob({ status: "SUSPENDED", wakeAt: index % 2 ? null : Date.now() + HOUR }));
  for (let offset = 0; offset < suspended.length; offset += 1000) {
    await Promise.all(suspended.slice(offset, offset + 1000).map((job) => submitter.insertJob(job, [], [])));
  }
  const claimCalls: number[] = [];
  for (let index = 0; index < 200; index++) {
    await submitter.insertJob(sampleJob({ createdAt: Date.now() }), [], []);
    const start = performance.now();
    const leases = await worker.claimRunnable("bench-worker", HOUR, 1);
    claimCalls.push(performance.now() - start);
    if (leases.length !== 1) throw new Error("the claim found no job");
  }
  console.log(`postgres-claims: one claimRunnable call (one job) with 10,000 suspended jobs waiting: ${format(claimCalls)}`);

  await Promise.all([submitter.close(), worker.close()]);
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA "${schema}" CASCADE`);
  await client.end();
}

if (import.meta.main) await main();
