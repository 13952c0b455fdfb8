/**
 * A chaos run (a job survives anything but the loss of its store), shared by test/chaos.test.ts
 * (CI sizes) and bench/chaos.ts (the closing figures): several worker processes on one store — a SQLite file or
 * a PostgreSQL schema — run the chaos agents' jobs (fixtures/chaos-agents.ts) while a client process pushes
 * messages and approves transfers at random (fixtures/chaos-client.ts), and this process, with a seeded random
 * source, kills workers with SIGKILL (starting a new one each time), stops one with SIGSTOP past its lease and
 * resumes it, and restarts PostgreSQL with `pg_ctl restart -m immediate`. When every job has ended (or the
 * deadline passed) it stops everything and checks what the store and the application's rows say
 * (chaos-verify.ts). Kill-to-takeover is measured per job the killed worker held: until its lease ended or
 * moved to another worker.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { Statek } from "../../src/index.ts";
import { verifyChaos, type ChaosFindings, type FaultMark } from "./chaos-verify.ts";
import { restartPostgres } from "./postgres-control.ts";
import { seededRandom } from "./seeded-random.ts";

const fixtures = join(import.meta.dirname, "..", "fixtures");

/** The size and faults of a run. */
export interface ChaosOptions {
  /** `sqlite`, or a PostgreSQL server's URL (a fresh schema is made in it, and dropped after). */
  store: "sqlite" | { postgres: string };
  /** Parent jobs (each starts one child). */
  jobs: number;
  /** Worker processes at once. */
  workers: number;
  maxConcurrency: number;
  leaseMs: number;
  seed: number;
  /** SIGKILLs, SIGSTOPs and database restarts to make while work remains. */
  kills: number;
  stops: number;
  restarts: number;
  /** A fault every so often: between these many milliseconds. */
  faultGapMs: [number, number];
  /** The run fails when its jobs have not all ended by then. */
  deadlineMs: number;
  /** Keeps the run's files (store, application rows, each process's output) in this directory, for a look afterwards. */
  keep?: string;
  log?: (line: string) => void;
}

/** What a run did and found. */
export interface ChaosReport extends ChaosFindings {
  seed: number;
  store: string;
  kills: number;
  stops: number;
  restarts: number;
  durationMs: number;
  /** Kill-to-takeover of each job a killed worker held, in milliseconds. */
  takeoverMs: number[];
  /** Late leases and step errors the workers reported. */
  leaseLate: number;
  stepErrors: number;
  /** The client's counts (pushes, approvals, forged settlements and how many were accepted). */
  client: Record<string, number>;
}

/** A process of the run, with its output kept. */
interface Child {
  script: string;
  process: ChildProcess;
  output: string;
  exited: Promise<void>;
  /** Set when this run signals the process: an exit before that is the process's own (a crash, a give-up). */
  signalled: boolean;
  /** Its exit code, when it exited on its own. */
  ownExit?: number | string;
}

function start(script: string, args: string[]): Child {
  const child = spawn(process.execPath, [join(fixtures, script), ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const entry: Child = {
    script, process: child, output: "", signalled: false,
    exited: new Promise((resolve) => child.once("exit", (code, signal) => {
      if (!entry.signalled) entry.ownExit = code ?? signal ?? "unknown";
      resolve();
    })),
  };
  child.stdout!.on("data", (chunk) => (entry.output += chunk));
  child.stderr!.on("data", (chunk) => (entry.output += chunk));
  return entry;
}

/** Resolves once a worker says it claims (or exits). */
async function working(child: Child): Promise<void> {
  while (!child.output.includes('"event":"working"') && child.process.exitCode === null && child.process.signalCode === null) await pause(50);
}

/** Sends `signal` to a process of the run, marking its end as this run's doing. */
function signal(child: Child, name: NodeJS.Signals): void {
  child.signalled = true;
  child.process.kill(name);
}

const lines = (child: Child) => child.output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fixture` to its end (submitting jobs). */
async function runToEnd(script: string, args: string[]): Promise<void> {
  const child = start(script, args);
  await child.exited;
  if (child.process.exitCode !== 0) throw new Error(`${script} ${args.join(" ")} failed: ${child.output.slice(-2000)}`);
}

/** The store's jobs table, read behind its back: which live leases a process holds, and when they end or move. */
interface LeaseProbe {
  leasedBy(pid: number): Promise<string[]>;
  /** Of `ids`, those whose lease is no longer a live one of `pid`. */
  released(ids: readonly string[], pid: number): Promise<Set<string>>;
  close(): Promise<void>;
}

function sqliteProbe(path: string): LeaseProbe {
  const db = new DatabaseSync(path, { readOnly: true });
  db.exec("PRAGMA busy_timeout = 5000");
  return {
    leasedBy: async (pid) => (db.prepare("SELECT id FROM jobs WHERE lease_owner LIKE ? AND lease_until > ?").all(`%:${pid}:%`, Date.now()) as Array<{ id: string }>).map((row) => row.id),
    released: async (ids, pid) => {
      const rows = db.prepare(`SELECT id, lease_owner AS owner, lease_until AS until FROM jobs WHERE id IN (${ids.map(() => "?").join(",")})`).all(...ids) as Array<{ id: string; owner: string | null; until: number | null }>;
      return new Set(rows.filter((row) => row.owner === null || !row.owner.includes(`:${pid}:`) || (row.until ?? 0) <= Date.now()).map((row) => row.id));
    },
    close: async () => db.close(),
  };
}

function postgresProbe(url: string, schema: string): LeaseProbe {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on("error", () => {});
  const table = `"${schema}".jobs`;
  return {
    leasedBy: async (pid) => (await pool.query(`SELECT id FROM ${table} WHERE lease_owner LIKE $1 AND lease_until > $2`, [`%:${pid}:%`, Date.now()])).rows.map((row) => String(row.id)),
    released: async (ids, pid) => {
      const { rows } = await pool.query(`SELECT id, lease_owner AS owner, lease_until AS until FROM ${table} WHERE id = ANY($1)`, [ids]);
      return new Set(rows.filter((row) => row.owner === null || !String(row.owner).includes(`:${pid}:`) || Number(row.until ?? 0) <= Date.now()).map((row) => String(row.id)));
    },
    close: () => pool.end(),
  };
}

/** Runs one chaos run (see the module comment) and returns its report; throws only when the run itself cannot be made. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const random = seededRandom(options.seed);
  const dir = mkdtempSync(join(tmpdir(), "statek-chaos-"));
  const appPath = join(dir, "app.db");
  let storeSpec: string;
  let schema: string | undefined;
  let probe: LeaseProbe | undefined;
  if (options.store === "sqlite") {
    storeSpec = join(dir, "statek.db");
  } else {
    schema = `chaos_${randomBytes(5).toString("hex")}`;
    storeSpec = `${options.store.postgres}?schema=${schema}`;
  }
  const children: Child[] = [];
  const workers: Child[] = [];
  const faults: FaultMark[] = [];
  const takeovers: Array<Promise<number[]>> = [];
  const started = Date.now();
  let client: Child | undefined;
  let statek: Statek | undefined;
  try {
    await runToEnd("chaos-worker.ts", [storeSpec, appPath, "submit", String(options.jobs)]);
    probe = options.store === "sqlite" ? sqliteProbe(storeSpec) : postgresProbe(options.store.postgres, schema!);
    const startWorker = () => {
      const worker = start("chaos-worker.ts", [storeSpec, appPath, "work", String(options.leaseMs), String(options.maxConcurrency)]);
      workers.push(worker);
      children.push(worker);
      return worker;
    };
    for (let n = 0; n < options.workers; n++) startWorker();
    // Faults start once every worker claims (a process takes seconds to start on a loaded machine).
    await Promise.all(workers.map((worker) => working(worker)));
    client = start("chaos-client.ts", [storeSpec, String(random.int(1, 2 ** 31 - 1))]);
    children.push(client);
    log(`# chaos: ${options.workers} workers claiming at +${Date.now() - started} ms`);
    statek = await Statek.open({ store: storeSpec });
    const total = options.jobs * 2;
    const done = async () => {
      const counts = await statek!.store.countJobs().catch(() => undefined);
      return counts !== undefined && counts.DONE + counts.FAILED + counts.CANCELLED >= total;
    };
    const budget = { kills: options.kills, stops: options.stops, restarts: options.restarts };
    let nextFault = Date.now() + random.int(...options.faultGapMs);
    let nextProgress = Date.now() + 5_000;
    while (!(await done())) {
      if (Date.now() >= nextProgress) {
        nextProgress = Date.now() + 5_000;
        const counts = await statek.store.countJobs().catch(() => undefined);
        if (counts) log(`# chaos: +${Date.now() - started} ms ${Object.entries(counts).filter(([, count]) => count).map(([status, count]) => `${status} ${count}`).join(", ")}`);
      }
      if (Date.now() - started > options.deadlineMs) {
        log(`# chaos: deadline of ${options.deadlineMs} ms passed`);
        break;
      }
      if (Date.now() >= nextFault && budget.kills + budget.stops + budget.restarts > 0) {
        nextFault = Date.now() + random.int(...options.faultGapMs);
        // Kills and stops land on a worker that holds jobs: a worker still starting (seconds on a loaded machine)
        // killed again and again would stop all progress and test nothing. With none, the fault waits for one.
        const live = workers.filter((worker) => worker.process.exitCode === null && worker.process.signalCode === null);
        const holding = await Promise.all(live.map(async (worker) => ({ worker, held: await probe!.leasedBy(worker.process.pid!).catch(() => [] as string[]) })));
        const busy = holding.filter((entry) => entry.held.length > 0);
        const kinds = [
          ...(budget.kills && busy.length ? (Array(3).fill("kill") as string[]) : []),
          ...(budget.stops && busy.length ? ["stop"] : []),
          ...(budget.restarts ? ["restart"] : []),
        ];
        const kind = kinds.length ? random.pick(kinds) : "none";
        if (kind === "none") nextFault = Date.now() + 200;
        if (kind === "kill") {
          budget.kills--;
          const { worker: victim, held } = random.pick(busy);
          const pid = victim.process.pid!;
          const at = Date.now();
          signal(victim, "SIGKILL");
          faults.push({ kind: "kill", at, until: at, pid });
          log(`# chaos: SIGKILL worker ${pid} holding ${held.length} jobs at +${at - started} ms`);
          takeovers.push(measureTakeover(probe, held, pid, at));
          await victim.exited;
          // The next fault's gap starts once the replacement claims: on a loaded machine a worker takes seconds to
          // start, and faults timed from the kill would land before the workers step anything at all.
          await working(startWorker());
          nextFault = Date.now() + random.int(...options.faultGapMs);
        } else if (kind === "stop") {
          budget.stops--;
          const { worker: victim } = random.pick(busy);
          const pid = victim.process.pid!;
          const at = Date.now();
          victim.process.kill("SIGSTOP");
          // Stopped past its lease (its jobs are taken over meanwhile), then resumed: it must notice, not write on.
          log(`# chaos: SIGSTOP worker ${pid} for ${options.leaseMs * 1.5} ms at +${at - started} ms`);
          await pause(options.leaseMs * 1.5);
          victim.process.kill("SIGCONT");
          const resumedAt = Date.now();
          faults.push({ kind: "stop", at, until: resumedAt + options.leaseMs, resumedAt, pid });
        } else if (kind === "restart") {
          budget.restarts--;
          const at = Date.now();
          const ms = await restartPostgres();
          // Calls made during the outage fail for a while after it too (retries, reconnections).
          faults.push({ kind: "restart", at, until: Date.now() + 15_000 });
          log(`# chaos: PostgreSQL restarted (-m immediate) in ${ms} ms at +${at - started} ms`);
        }
      }
      await pause(100);
    }
    const durationMs = Date.now() - started;
    // Everything stops before the store is read: the client first (so it stops pushing), then the workers.
    for (const child of [client, ...workers]) if (child.process.exitCode === null && child.process.signalCode === null) signal(child, "SIGTERM");
    await Promise.race([Promise.all(children.map((child) => child.exited)), pause(20_000)]);
    for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) signal(child, "SIGKILL");
    await Promise.all(children.map((child) => child.exited));
    const takeoverMs = (await Promise.all(takeovers)).flat();
    const findings = await verifyChaos(statek, appPath, faults);
    // A worker or the client that ended by itself leaves the run short of hands: its jobs' stalls are its doing.
    for (const child of children) {
      if (child.ownExit !== undefined) findings.violations.push(`${child.script} (pid ${child.process.pid}) exited on its own (${child.ownExit}): ${child.output.slice(-600)}`);
    }
    const workerLines = workers.flatMap(lines);
    const summary = lines(client).find((line) => line.event === "summary") ?? {};
    const clientCounts = Object.fromEntries(Object.entries(summary).filter(([, value]) => typeof value === "number")) as Record<string, number>;
    if (clientCounts.forgedAccepted) findings.violations.push(`${clientCounts.forgedAccepted} settlements through another kind's door were accepted`);
    return {
      ...findings,
      seed: options.seed,
      store: options.store === "sqlite" ? "sqlite" : "postgres",
      kills: faults.filter((fault) => fault.kind === "kill").length,
      stops: faults.filter((fault) => fault.kind === "stop").length,
      restarts: faults.filter((fault) => fault.kind === "restart").length,
      durationMs,
      takeoverMs,
      leaseLate: workerLines.filter((line) => line.event === "lease-late").length,
      stepErrors: workerLines.filter((line) => line.event === "step-error").length,
      client: clientCounts,
    };
  } finally {
    for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
    if (options.keep) {
      mkdirSync(options.keep, { recursive: true });
      children.forEach((child, index) => writeFileSync(join(options.keep!, `process-${index}-${child.process.pid}.log`), child.output));
      writeFileSync(join(options.keep, "faults.json"), JSON.stringify(faults, null, 1));
    }
    await statek?.close().catch(() => undefined);
    await probe?.close().catch(() => undefined);
    // A kept run keeps the store's tables too (the private server of a test goes away with its data).
    if (options.keep && schema && options.store !== "sqlite") await dumpTables(options.store.postgres, schema, options.keep).catch(() => undefined);
    if (schema && options.store !== "sqlite") {
      const admin = new pg.Client({ connectionString: options.store.postgres });
      await admin.connect().then(() => admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).catch(() => undefined).finally(() => admin.end().catch(() => undefined));
    }
    if (options.keep) cpSync(dir, options.keep, { recursive: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes the store's job, history, journal and future rows of `schema` to `<dir>/<table>.json`, for reading a kept run. */
async function dumpTables(url: string, schema: string, dir: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const table of ["jobs", "job_history", "journal", "futures"]) {
      const { rows } = await client.query(`SELECT * FROM "${schema}".${table}`);
      writeFileSync(join(dir, `${table}.json`), JSON.stringify(rows, null, 1));
    }
  } finally {
    await client.end();
  }
}

/** Polls until every job of `ids` is no longer under a live lease of `pid`; resolves to each one's time since `at`. */
async function measureTakeover(probe: LeaseProbe, ids: readonly string[], pid: number, at: number): Promise<number[]> {
  const times: number[] = [];
  let left = [...ids];
  while (left.length && Date.now() - at < 120_000) {
    const released = await probe.released(left, pid).catch(() => new Set<string>());
    for (let n = 0; n < released.size; n++) times.push(Date.now() - at);
    left = left.filter((id) => !released.has(id));
    if (left.length) await pause(20);
  }
  return times;
}

/** The `p`-th percentile of `values` (nearest rank), or `NaN` for none. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** One line of figures for a report. */
export function chaosFigures(report: ChaosReport): string {
  const extra = report.extraCalls;
  const extraTotal = extra.afterKill + extra.afterStop + extra.afterRestart + extra.other;
  const perThousand = report.turns ? ((1000 * extraTotal) / report.turns).toFixed(1) : "0";
  return [
    `seed ${report.seed}`, `${report.store}`, `${report.parents}+${report.children} jobs`, `${report.kills} kills, ${report.stops} stops, ${report.restarts} restarts`,
    `${(report.durationMs / 1000).toFixed(1)} s`, `stuck ${report.stuck.length}`, `off script ${report.offScript.length}`,
    `calls without their record ${report.unrecorded}`, `recorded twice ${report.recordedTwice}`, `duplicate effects ${report.duplicateEffects}`,
    `in doubt shown ${report.inDoubt}`, `effects by a stopped worker after resuming ${report.afterResume} (not in doubt ${report.afterResumeNotInDoubt})`, `idempotent calls made again ${report.idempotentAgain}`,
    `${report.turns} turns, ${report.modelCalls} model calls, extra per 1,000 turns ${perThousand} (after a kill ${extra.afterKill}, a stop ${extra.afterStop}, a restart ${extra.afterRestart}, other ${extra.other})`,
    `takeover p50 ${percentile(report.takeoverMs, 50)} ms p99 ${percentile(report.takeoverMs, 99)} ms (${report.takeoverMs.length} jobs)`,
    `late leases ${report.leaseLate}`, `step errors ${report.stepErrors}`,
    `forged settlements ${report.client.forged ?? 0}, accepted ${report.client.forgedAccepted ?? 0}`,
    `pushes ${report.client.pushes ?? 0} (at once ${report.client.pushedAtOnce ?? 0}, early ${report.client.pushedEarly ?? 0}), approvals ${report.client.approvals ?? 0} (at once ${report.client.approvedAtOnce ?? 0})`,
  ].join(" · ");
}
