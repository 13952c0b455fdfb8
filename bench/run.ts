/**
 * `npm run bench [-- name…]`: runs the benchmarks (all, or those named) and prints their figures, each between
 * two lines giving the machine's load average (figures taken on a busy machine say so). Benchmarks measure; they
 * never fail a build. The long ones (`LONG`) run only when named; a group name (`GROUPS`) runs its benchmarks.
 */
import { loadavg } from "node:os";

const BENCHES: Record<string, () => Promise<{ main(): Promise<void> }>> = {
  "step-overhead": () => import("./step-overhead.ts"),
  sandbox: () => import("./sandbox.ts"),
  "native-loops": () => import("./native-loops.ts"),
  "workspace-size": () => import("./workspace-size.ts"),
  "record-variables": () => import("./record-variables.ts"),
  "store-writes": () => import("./store-writes.ts"),
  durable: () => import("./durable.ts"),
  ui: () => import("./ui.ts"),
  "postgres-claims": () => import("./postgres-claims.ts"),
  "postgres-workers": () => import("./postgres-workers.ts"),
  "postgres-steps": () => import("./postgres-steps.ts"),
  "cold-steps": () => import("./cold-steps.ts"),
  "vm-create": () => import("./vm-create.ts"),
  approvals: () => import("./approvals.ts"),
  "worker-steps": () => import("./worker-steps.ts"),
  "main-thread": () => import("./main-thread-steps.ts"),
  "worker-suspended": () => import("./worker-suspended.ts"),
  "worker-restart": () => import("./worker-restart.ts"),
  "memory-return": () => import("./memory-return.ts"),
  "nested-reads": () => import("./nested-reads.ts"),
  "tool-calls": () => import("./tool-calls.ts"),
  "postgres-idle": () => import("./postgres-idle.ts"),
  "postgres-peers": () => import("./postgres-peers.ts"),
  "typed-cells": () => import("./typed-cells.ts"),
  chaos: () => import("./chaos.ts"),
  "agent-loop": () => import("./agent-loop.ts"),
  "agent-events": () => import("./agent-events.ts"),
  resume: () => import("./resume.ts"),
};

/** Runs of many minutes (the chaos runs: five per store at full size), left out of a run that names nothing. */
const LONG: ReadonlySet<string> = new Set(["chaos"]);

/**
 * Named sets of benchmarks. `growth`: the figures of where users grow — durable no-op steps on SQLite against
 * the fsync ceiling, a variable of 1,000 records against an empty workspace, the scheduling thread's and the
 * process's CPU a step, resume with 1 and 50 variables, and on PostgreSQL (under scripts/with-postgres.ts, the
 * peers from STATEK_BENCH_PEERS) steps/s beside DBOS, submit → first step beside graphile-worker, 1 against 3
 * worker processes. One command: `STATEK_BENCH_PEERS=/tmp/peers WITH_POSTGRES_DURABLE=1 npx node
 * scripts/with-postgres.ts npm run bench -- growth`; without a server the PostgreSQL parts say they were not run.
 */
const GROUPS: Record<string, readonly string[]> = {
  growth: ["worker-steps", "record-variables", "main-thread", "resume", "postgres-peers", "postgres-workers"],
};

const loadLine = () => loadavg().map((load) => load.toFixed(2)).join(" ");

const wanted = process.argv.slice(2).flatMap((name) => GROUPS[name] ?? [name]);
if (!wanted.length) console.log(`bench: running all but ${[...LONG].join(", ")} (name ${LONG.size > 1 ? "them" : "it"} to run ${LONG.size > 1 ? "them" : "it"})`);
for (const name of wanted.length ? wanted : Object.keys(BENCHES).filter((name) => !LONG.has(name))) {
  const load = BENCHES[name];
  if (!load) {
    console.error(`unknown benchmark '${name}' (known: ${Object.keys(BENCHES).join(", ")}; groups: ${Object.keys(GROUPS).join(", ")})`);
    process.exitCode = 2;
    continue;
  }
  console.log(`bench ${name}: load average ${loadLine()} at the start`);
  await (await load()).main();
  console.log(`bench ${name}: load average ${loadLine()} at the end`);
}
