/**
 * bench/postgres-peers: STATEK on PostgreSQL next to its peers on the same server, in the same run.
 * - Durable no-op steps per second: STATEK, 100 jobs under one worker (each step a model reply whose cell does
 *   nothing, committed) against DBOS Transact, 100 workflows at once each running checkpointed no-op steps.
 * - Submit → first step in another process: a worker process waits (10 slots); this process submits one job at a
 *   time and waits for the worker to say the job's first step began (STATEK: its model is asked; graphile-worker:
 *   its task runs); p50 and p99 over SUBMITS submits.
 * Each figure is the median of RUNS runs (STATEK_BENCH_RUNS, default 3), printed with the machine's load and the
 * server's `fsync` setting. The peers are loaded from STATEK_BENCH_PEERS (bench/peers/peer-modules.ts); a peer
 * that is not installed is named as not run.
 *
 * STATEK_BENCH_ONLY=starts runs the second part only.
 *
 * Run: `STATEK_BENCH_PEERS=/tmp/peers WITH_POSTGRES_DURABLE=1 npx node scripts/with-postgres.ts npm run bench --
 * postgres-peers` (a private server with fsync on), or with STATEK_TEST_POSTGRES naming a server.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { Agent, Statek, scriptedModel } from "../src/index.ts";
import { dbosStepsPerSecond } from "./peers/dbos-steps.ts";
import { loadPeer, preciseNow } from "./peers/peer-modules.ts";
import { workerStepsPerSecond } from "./worker-steps.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
const STEPS = Number(process.env.STATEK_BENCH_STEPS ?? 2_000);
const SUBMITS = Number(process.env.STATEK_BENCH_SUBMITS ?? 200);
/** `starts` runs only the submit → first step part (STATEK_BENCH_ONLY). */
const ONLY = process.env.STATEK_BENCH_ONLY;
const FIXTURE = join(import.meta.dirname, "peers", "first-step-process.ts");

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `url` with the store's own schema. */
function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("schema", schema);
  return parsed.toString();
}

/** A worker process of FIXTURE, once it says it is ready, and the start times it prints, in order. */
async function startWorker(kind: "statek" | "graphile", url: string): Promise<{ next(): Promise<number>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [FIXTURE, kind, url], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Only the protocol's lines count: a peer logs to standard output too.
  const line = async () => {
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the ${kind} worker process ended before it answered`);
      const text = String(value);
      if (text === "ready" || text.startsWith("start ")) return text;
    }
  };
  try {
    await line();
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    async next() {
      const text = await line();
      const match = /^start (\S+)$/.exec(text);
      if (!match) throw new Error(`the ${kind} worker process printed ${JSON.stringify(text)}`);
      return Number(match[1]);
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Milliseconds from submit to first step, one job at a time, `submits` times (after 10 not counted). */
async function submitToStart(kind: "statek" | "graphile", url: string, submits: number): Promise<number[]> {
  const worker = await startWorker(kind, url);
  const latencies: number[] = [];
  try {
    let submit: () => Promise<void>;
    let close: () => Promise<void>;
    if (kind === "statek") {
      const agent = new Agent({ role: "first", model: scriptedModel(["```ts\nexit(1)\n```"]) });
      const statek = await Statek.open({ store: url });
      submit = async () => void (await statek.submitJob(agent));
      close = () => statek.close();
    } else {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      submit = async () => void (await pool.query("SELECT graphile_worker.add_job('first', '{}'::json)"));
      close = () => pool.end();
    }
    try {
      for (let n = 0; n < submits + 10; n++) {
        const at = preciseNow();
        await submit();
        const began = await worker.next();
        if (n >= 10) latencies.push(began - at);
        // The worker is idle again, waiting on its wake-ups, when the next job comes.
        await pause(10);
      }
    } finally {
      await close();
    }
  } finally {
    await worker.stop();
  }
  return latencies;
}

export async function main(): Promise<void> {
  const url = process.env.STATEK_TEST_POSTGRES;
  if (!url) {
    console.log("bench/postgres-peers: not run (STATEK_TEST_POSTGRES is not set; run under scripts/with-postgres.ts)");
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const fsync = (await client.query<{ fsync: string }>("SHOW fsync")).rows[0]!.fsync;
  const version = (await client.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version;
  await client.end();
  console.log(`bench/postgres-peers (PostgreSQL ${version}, fsync ${fsync}; median of ${RUNS} runs; load ${load()})`);

  if (ONLY !== "starts") await stepsSideBySide(url);
  await startsSideBySide(url);
}

/** Durable no-op steps per second: STATEK against DBOS Transact. */
async function stepsSideBySide(url: string): Promise<void> {
  const statekSteps: number[] = [];
  for (let run = 0; run < RUNS; run++) statekSteps.push(await workerStepsPerSecond(100, STEPS, 200, withSchema(url, `peers_steps_${process.pid}_${run}`)));
  console.log(`  STATEK, 100 jobs under one worker: ${median(statekSteps).toFixed(0)} durable no-op steps/s (runs: ${statekSteps.map((rate) => rate.toFixed(0)).join(", ")}; load ${load()})`);
  const dbosRuns = await dbosStepsPerSecond(url, 100, Math.ceil(STEPS / 100), RUNS);
  const dbos = "missing" in dbosRuns ? [] : dbosRuns.stepsPerSecond;
  const dbosVersion = "missing" in dbosRuns ? "" : dbosRuns.version;
  if ("missing" in dbosRuns) console.log(`  DBOS Transact: not run, ${dbosRuns.missing}`);
  if (dbos.length) {
    console.log(`  DBOS Transact ${dbosVersion}, 100 workflows at once: ${median(dbos).toFixed(0)} checkpointed no-op steps/s (runs: ${dbos.map((rate) => rate.toFixed(0)).join(", ")}; load ${load()})`);
    console.log(`  STATEK / DBOS: ${(median(statekSteps) / median(dbos)).toFixed(2)}×`);
  }
}

/** Submit → first step in another process: STATEK against graphile-worker. */
async function startsSideBySide(url: string): Promise<void> {
  const row = (name: string, runs: number[][]) =>
    `  ${name}: submit → first step in another process p50 ${median(runs.map((values) => percentile(values, 50))).toFixed(1)} ms, p99 ${median(runs.map((values) => percentile(values, 99))).toFixed(1)} ms (${SUBMITS} submits a run; load ${load()})`;
  const statekStarts: number[][] = [];
  for (let run = 0; run < RUNS; run++) statekStarts.push(await submitToStart("statek", withSchema(url, `peers_claims_${process.pid}_${run}`), SUBMITS));
  console.log(row("STATEK", statekStarts));
  const graphile = loadPeer<unknown>("graphile-worker");
  if ("missing" in graphile) {
    console.log(`  graphile-worker: not run, ${graphile.missing}`);
    return;
  }
  const graphileStarts: number[][] = [];
  for (let run = 0; run < RUNS; run++) graphileStarts.push(await submitToStart("graphile", url, SUBMITS));
  console.log(row(`graphile-worker ${graphile.version}`, graphileStarts));
}

if (import.meta.main) await main();
