/**
 * bench/postgres-idle: queries per second that an idle worker sends to PostgreSQL. A Statek opens the database
 * with one agent and no jobs, starts `statek.worker()`, waits until it settled, then counts every statement its
 * process sends over WINDOW_MS (STATEK_BENCH_WINDOW_MS, default 10 s) — by counting calls of `pg`'s
 * `Client.prototype.query`, which every pooled query and the LISTEN connection go through. Printed: the median
 * of RUNS windows (STATEK_BENCH_RUNS, default 3), and the statements seen in the last window by their first
 * words.
 *
 * Run: `npx node scripts/with-postgres.ts npm run bench -- postgres-idle` (or with STATEK_TEST_POSTGRES naming a
 * server).
 */
import pg from "pg";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
const WINDOW_MS = Number(process.env.STATEK_BENCH_WINDOW_MS ?? 10_000);
const SETTLE_MS = 2_000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The statement's text, whichever form `query` was called with. */
function textOf(query: unknown): string {
  if (typeof query === "string") return query;
  if (typeof query === "object" && query !== null && "text" in query && typeof query.text === "string") return query.text;
  return "?";
}

export async function main(): Promise<void> {
  const url = process.env.STATEK_TEST_POSTGRES;
  if (!url) {
    console.log("postgres-idle: skipped (run it under scripts/with-postgres.ts, or set STATEK_TEST_POSTGRES)");
    return;
  }
  const seen: string[] = [];
  const original = pg.Client.prototype.query;
  // Counting only: the call goes on unchanged. `query` is overloaded, hence the loose signature.
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    seen.push(textOf(args[0]).replace(/\s+/g, " ").trim().split(" ").slice(0, 4).join(" "));
    return (original as (...parameters: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const agent = new Agent({ role: "idle", model: scriptedModel([]) });
    const statek = await Statek.open({ store: url, agents: [agent] });
    const worker = statek.worker();
    await worker.start();
    await pause(SETTLE_MS);
    const rates: number[] = [];
    let last: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const from = seen.length;
      const started = performance.now();
      await pause(WINDOW_MS);
      last = seen.slice(from);
      rates.push(last.length / ((performance.now() - started) / 1000));
    }
    await worker.stop();
    await statek.close();
    const byKind = new Map<string, number>();
    for (const text of last) byKind.set(text, (byKind.get(text) ?? 0) + 1);
    console.log(`postgres-idle: an idle worker sends ${median(rates).toFixed(2)} queries/s to PostgreSQL (median of ${RUNS} windows of ${WINDOW_MS / 1000} s; each: ${rates.map((rate) => rate.toFixed(2)).join(", ")})`);
    for (const [text, count] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`  ${count}× ${text}`);
  } finally {
    pg.Client.prototype.query = original;
  }
}

if (import.meta.main) await main();
