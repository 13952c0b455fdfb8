/**
 * `npm run bench [-- name…]`: runs the benchmarks (all, or those named) and prints their figures.
 * Benchmarks measure; they never fail a build. The long ones (`LONG`) run only when named.
 */
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

const wanted = process.argv.slice(2);
if (!wanted.length) console.log(`bench: running all but ${[...LONG].join(", ")} (name ${LONG.size > 1 ? "them" : "it"} to run ${LONG.size > 1 ? "them" : "it"})`);
for (const name of wanted.length ? wanted : Object.keys(BENCHES).filter((name) => !LONG.has(name))) {
  const load = BENCHES[name];
  if (!load) {
    console.error(`unknown benchmark '${name}' (known: ${Object.keys(BENCHES).join(", ")})`);
    process.exitCode = 2;
    continue;
  }
  await (await load()).main();
}
