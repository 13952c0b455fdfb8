/**
 * bench/postgres-steps: durable no-op steps per second under `statek.worker()` on PostgreSQL (QuickJS
 * executor), with 100 jobs at once (maxConcurrency = jobs), each run on a fresh schema. Beside the rate, what
 * depends less on how busy the machine is: this process's CPU per step (main thread and sandbox threads), and
 * per step the server's committed transactions (reads outside a transaction count as one each) and inserted
 * rows (`pg_stat_database`, the whole database: run it on a private server), and the queries this process sent
 * (each `query` call of a `pg` client, pipelined or not; a call may hold several statements). Each figure is the median of RUNS
 * runs (STATEK_BENCH_RUNS, default 3); steps counted: STATEK_BENCH_STEPS (default 2,000).
 *
 * Run: `npx node scripts/with-postgres.ts env WITH_POSTGRES_DURABLE=1 npm run bench -- postgres-steps` (a private
 * server; WITH_POSTGRES_DURABLE=1 keeps fsync on), or with STATEK_TEST_POSTGRES naming a server.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
const STEPS = Number(process.env.STATEK_BENCH_STEPS ?? 2_000);
const JOBS = 100;
const NOOP_CELL = "```ts\n1\n```";

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Figures {
  rate: number;
  cpuMs: number;
  transactions: number;
  rows: number;
  queries: number;
}

/** Queries this process sent to the server so far (every `pg` client's `query` call: a pipelined one counts too). */
let queriesSent = 0;
const sendQuery = pg.Client.prototype.query;
Object.defineProperty(pg.Client.prototype, "query", {
  configurable: true,
  writable: true,
  value(this: pg.Client, ...args: unknown[]): unknown {
    queriesSent++;
    return Reflect.apply(sendQuery, this, args);
  },
});

/** The database's committed transactions and inserted rows so far (the statistics lag by up to a second). */
async function serverCounts(url: string): Promise<{ transactions: number; rows: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("SELECT pg_stat_force_next_flush()");
  const { rows } = await client.query("SELECT xact_commit, tup_inserted FROM pg_stat_database WHERE datname = current_database()");
  await client.end();
  return { transactions: Number(rows[0].xact_commit), rows: Number(rows[0].tup_inserted) };
}

/** Steps per second of `jobs` jobs under one worker on a fresh schema, counted over `steps` steps after `warmup`. */
async function stepsPerSecond(url: string, jobs: number, steps: number, warmup: number): Promise<Figures> {
  const schema = `bench_steps_${Date.now()}`;
  const model = scriptedModel(Array.from({ length: steps + warmup + jobs * 4 }, () => NOOP_CELL));
  const agent = new Agent({ role: "bench", model, harness: { maxTurns: 100_000 } });
  const statek = await Statek.open({ store: `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`, agents: [agent] });
  await Promise.all(Array.from({ length: jobs }, () => statek.submitJob(agent, { vars: { x: 1 } })));
  const worker = statek.worker({ maxConcurrency: jobs });
  let started = 0;
  let from = 0;
  let cpuFrom = process.cpuUsage();
  let queriesFrom = 0;
  let countsFrom: Promise<{ transactions: number; rows: number }> | undefined;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  let seen = 0;
  await worker.start();
  // The worker's counters, read every 5 ms (the bench's own observation; it adds no work to the worker).
  const timer = setInterval(() => {
    seen = worker.stats.steps;
    if (started === 0 && seen >= warmup) {
      started = performance.now();
      from = seen;
      cpuFrom = process.cpuUsage();
      queriesFrom = queriesSent;
      countsFrom = serverCounts(url);
    } else if (started && seen - from >= steps) done();
  }, 5);
  await finished;
  clearInterval(timer);
  const rate = ((seen - from) * 1000) / (performance.now() - started);
  const cpu = process.cpuUsage(cpuFrom);
  const counted = seen - from;
  const queries = (queriesSent - queriesFrom) / counted;
  const countsTo = await serverCounts(url);
  const before = await countsFrom!;
  await worker.stop({ graceMs: 0 });
  await statek.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA "${schema}" CASCADE`);
  await client.end();
  return {
    rate, cpuMs: (cpu.user + cpu.system) / 1000 / counted,
    transactions: (countsTo.transactions - before.transactions) / counted, rows: (countsTo.rows - before.rows) / counted, queries,
  };
}

export async function main(): Promise<void> {
  const url = process.env["STATEK_TEST_POSTGRES"];
  if (!url) {
    console.log("postgres-steps: no server (run `npx node scripts/with-postgres.ts npm run bench -- postgres-steps`)");
    return;
  }
  const durable = process.env["WITH_POSTGRES_DURABLE"] === "1" ? "fsync on" : "fsync as the server has it";
  const runs: Figures[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await stepsPerSecond(url, JOBS, STEPS, 200));
  const rates = runs.map((run) => run.rate);
  const of = (field: keyof Figures, digits: number) => median(runs.map((run) => run[field])).toFixed(digits);
  console.log(`postgres-steps (${durable}): ${JOBS} jobs under one worker: ${median(rates).toFixed(0)} durable no-op steps/s (runs: ${rates.map((rate) => rate.toFixed(0)).join(", ")});`
    + ` per step: ${of("cpuMs", 2)} ms CPU in this process, ${of("transactions", 2)} server transactions, ${of("queries", 2)} queries sent, ${of("rows", 2)} rows inserted (load ${load()})`);
}

if (import.meta.main) await main();
