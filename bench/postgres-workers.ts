/**
 * bench/postgres-workers: jobs per second with 1 and with 3 worker processes (`statek.worker`, maxConcurrency
 * 20 each) on one PostgreSQL database. Each job is three trivial steps (the warmup, then two scripted no-op
 * cells, the second of which exits: three commits). The jobs are submitted first; the workers start together
 * (each waits for a line on stdin) and the clock runs until the bench reads every job DONE (it polls a count
 * every 20 ms). Real processes: test/fixtures/worker-process.ts, role `trivial`.
 *
 * Two kinds of runs (STATEK_BENCH_KINDS, default `cpu,model`): CPU-bound, role `trivial` (the scripted model
 * answers at once), and model-bound, role `waiting` (each model turn answers after MODEL_DELAY_MS, default 200:
 * steps wait on the model, so 3 workers should reach ~3× one, each keeping maxConcurrency jobs in flight).
 *
 * Printed per configuration, medians of RUNS runs (STATEK_BENCH_RUNS, default 3): jobs/s over the whole run and
 * steady (from a quarter to nine tenths of the jobs done: the workers' start-up and the tail left out); each
 * worker's CPU (user + system from `process.cpuUsage()`, printed by the child on its last line; it includes its
 * last ~200 ms of idle polling and its stop); the PostgreSQL server's CPU over the run (utime + stime of the
 * postmaster and its children from /proc/<pid>/stat, plus what exited children left in its cutime/cstime — the
 * server must run on this machine); and how busy the whole machine was (/proc/stat), so the note can say where the
 * bound is. Jobs per run: STATEK_BENCH_JOBS (default 300).
 *
 * Run: `npx node scripts/with-postgres.ts npm run bench -- postgres-workers` (a private server, fsync off;
 * WITH_POSTGRES_DURABLE=1 keeps it on), or with STATEK_TEST_POSTGRES naming a server on this machine.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import pg from "pg";

const JOBS = Number(process.env.STATEK_BENCH_JOBS ?? 300);
const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
const CONCURRENCY = 20;
/** Which runs: `cpu` (the model answers at once), `model` (it answers after MODEL_DELAY_MS); STATEK_BENCH_KINDS=cpu,model. */
const KINDS = (process.env.STATEK_BENCH_KINDS ?? "cpu,model").split(",").map((kind) => kind.trim());
const MODEL_DELAY_MS = Number(process.env.MODEL_DELAY_MS ?? 200);
const fixture = join(import.meta.dirname, "../test/fixtures/worker-process.ts");

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), or undefined once gone. */
function procStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * CPU milliseconds the server has used so far: the postmaster's own and its reaped children's (cutime, cstime),
 * plus each live child's. Fields (0-based after the name): 1 ppid, 11 utime, 12 stime, 13 cutime, 14 cstime.
 */
function serverCpuMs(postmaster: number): number {
  const own = procStat(postmaster);
  if (!own) throw new Error(`the PostgreSQL server (pid ${postmaster}) is gone`);
  let ticks = [11, 12, 13, 14].reduce((sum, field) => sum + Number(own[field]), 0);
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const fields = procStat(Number(name));
    if (fields && Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Busy and total jiffies of the whole machine (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3]! + (fields[4] ?? 0);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

function child(args: string[], env: Record<string, string> = {}) {
  const process_ = spawn(process.execPath, [fixture, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  let errors = "";
  process_.stdout.on("data", (chunk) => (output += chunk));
  process_.stderr.on("data", (chunk) => (errors += chunk));
  const exited = new Promise<number | null>((resolve) => process_.on("exit", (code) => resolve(code)));
  const printed = async (text: string) => {
    while (!output.includes(text)) {
      if (process_.exitCode !== null) throw new Error(`worker-process exited (${process_.exitCode}) before printing ${text}: ${(output + errors).slice(-2000)}`);
      await pause(20);
    }
  };
  return { process: process_, exited, printed, output: () => output + errors, stdout: () => output };
}

interface RunFigures {
  jobsPerSecond: number;
  /**
   * Jobs/s between the moments a quarter and nine tenths of the jobs were done: the workers' start (threads,
   * QuickJS compiled, the checker) and the last jobs' tail left out, as a long-running deployment sees them.
   */
  steadyJobsPerSecond: number;
  seconds: number;
  workerCpuMs: number[];
  serverCpuMs: number;
  /** Share of the machine's CPU (all cores) busy during the run, 0–1, everyone's work included. */
  machineBusy: number;
}

async function oneRun(url: string, client: pg.Client, postmaster: number, workers: number, role: string): Promise<RunFigures> {
  const schema = `bench_workers_${Date.now()}_${workers}`;
  const store = `${url}?schema=${schema}`;
  try {
    const submit = child([store, store, "submit", String(JOBS), role]);
    if ((await submit.exited) !== 0) throw new Error(`submit failed: ${submit.output()}`);
    const children = Array.from({ length: workers }, () => child([store, store, "work", String(CONCURRENCY), "30000", "exit-when-done"], { WAIT_FOR_GO: "1" }));
    await Promise.all(children.map((worker) => worker.printed("ready")));
    const serverBefore = serverCpuMs(postmaster);
    const machineBefore = machineTicks();
    const started = performance.now();
    for (const worker of children) worker.process.stdin.end("go\n");
    let quarter: { at: number; done: number } | undefined;
    let ninetenths: { at: number; done: number } | undefined;
    for (;;) {
      const { rows } = await client.query(`SELECT count(*) FILTER (WHERE status <> 'DONE') AS open, count(*) FILTER (WHERE status = 'FAILED') AS failed FROM "${schema}".jobs`);
      if (Number(rows[0].failed) > 0) throw new Error(`${rows[0].failed} jobs FAILED`);
      const done = JOBS - Number(rows[0].open);
      if (!quarter && done >= JOBS / 4) quarter = { at: performance.now(), done };
      if (!ninetenths && done >= (JOBS * 9) / 10) ninetenths = { at: performance.now(), done };
      if (done === JOBS) break;
      await pause(20);
    }
    const seconds = (performance.now() - started) / 1000;
    const serverCpu = serverCpuMs(postmaster) - serverBefore;
    const machineAfter = machineTicks();
    const codes = await Promise.all(children.map((worker) => worker.exited));
    const stats = children.map((worker, index) => {
      if (codes[index] !== 0) throw new Error(`a worker exited with ${codes[index]}: ${worker.output().slice(-2000)}`);
      return JSON.parse(worker.stdout().trim().split("\n").at(-1)!) as { steps: number; cpuMs: number };
    });
    // Each job commits three times; a worker's step that changed nothing (its job was finished already) counts too.
    const steps = stats.reduce((sum, { steps }) => sum + steps, 0);
    const { rows } = await client.query(`SELECT sum(version)::int AS commits FROM "${schema}".jobs`);
    if (steps !== JOBS * 3 || rows[0].commits !== JOBS * 3) {
      const notes = children.map((worker) => worker.stdout().split("\n").filter((line) => line.startsWith("step-without-change")).join("; ")).filter(Boolean);
      console.log(`    note: the workers counted ${steps} steps, the jobs show ${rows[0].commits} commits, ${JOBS * 3} expected${notes.length ? ` (${notes.join("; ")})` : ""}`);
    }
    return {
      jobsPerSecond: JOBS / seconds, seconds,
      steadyJobsPerSecond: ninetenths!.at > quarter!.at ? ((ninetenths!.done - quarter!.done) * 1000) / (ninetenths!.at - quarter!.at) : Number.NaN, workerCpuMs: stats.map(({ cpuMs }) => cpuMs), serverCpuMs: serverCpu,
      machineBusy: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
    };
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}

export async function main(): Promise<void> {
  const url = process.env["STATEK_TEST_POSTGRES"];
  if (!url) {
    console.log("postgres-workers: no server (run `npx node scripts/with-postgres.ts npm run bench -- postgres-workers`)");
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT pg_backend_pid() AS pid");
    const postmaster = Number(procStat(Number(rows[0].pid))?.[1]);
    if (!Number.isInteger(postmaster) || postmaster <= 1) throw new Error("postgres-workers: the server must run on this machine (its CPU is read from /proc)");
    const cores = availableParallelism();
    console.log(`bench/postgres-workers: ${JOBS} jobs × 3 trivial steps, workers with maxConcurrency ${CONCURRENCY}; median of ${RUNS} runs; ${cores} cores`);
    for (const kind of KINDS) {
      const role = kind === "model" ? "waiting" : "trivial";
      console.log(kind === "model" ? `  model-bound (each of a job's two model turns answers after ${MODEL_DELAY_MS} ms):` : "  CPU-bound (the model answers at once):");
      const rates = new Map<number, number>();
      const steadyRates = new Map<number, number>();
      for (const workers of [1, 3]) {
        const runs: RunFigures[] = [];
        for (let run = 0; run < RUNS; run++) runs.push(await oneRun(url, client, postmaster, workers, role));
        const rate = median(runs.map((figures) => figures.jobsPerSecond));
        rates.set(workers, rate);
        const steady = median(runs.map((figures) => figures.steadyJobsPerSecond));
        steadyRates.set(workers, steady);
        const perWorker = Array.from({ length: workers }, (_, index) => median(runs.map((figures) => figures.workerCpuMs[index]!)));
        const seconds = median(runs.map((figures) => figures.seconds));
        const serverCpu = median(runs.map((figures) => figures.serverCpuMs));
        console.log(
          `  ${workers} worker${workers > 1 ? "s" : " "}: ${rate.toFixed(1)} jobs/s (${(rate * 3).toFixed(0)} steps/s; runs: ${runs.map((figures) => figures.jobsPerSecond.toFixed(1)).join(", ")}), ${seconds.toFixed(1)} s a run; steady (a quarter → nine tenths done) ${steady.toFixed(1)} jobs/s\n` +
          `    CPU over a run: worker${workers > 1 ? "s" : ""} ${perWorker.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(" + ")}, PostgreSQL ${(serverCpu / 1000).toFixed(1)} s ` +
          `(${((perWorker.reduce((sum, ms) => sum + ms, 0) + serverCpu) / 10 / seconds).toFixed(0)}% of one core); the machine was ${(median(runs.map((figures) => figures.machineBusy)) * 100).toFixed(0)}% busy (all ${cores} cores, everyone's work)`,
        );
      }
      console.log(`  3 workers / 1 worker (${kind}-bound): ${(rates.get(3)! / rates.get(1)!).toFixed(2)}× over the whole run, ${(steadyRates.get(3)! / steadyRates.get(1)!).toFixed(2)}× steady`);
    }
  } finally {
    await client.end();
  }
}

if (import.meta.main) await main();
