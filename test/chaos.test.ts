/**
 * Chaos, at CI size (test/support/chaos-harness.ts; bench/chaos.ts runs the 300-job version): several worker
 * processes on one store, a client pushing messages and approving transfers at random, workers killed with
 * SIGKILL and one stopped with SIGSTOP past its lease, and — on PostgreSQL — the server restarted with
 * `pg_ctl restart -m immediate`. Every job must end DONE on script; every tool call has exactly one history
 * record, an effect missing only where its record says it was in doubt, no non-idempotent effect twice; no turn
 * is paid twice except after a crash, stop or restart; and no wait is settled through another kind's door. The
 * seed is printed: `CHAOS_SEED=<seed>` runs the same choices again.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chaosFigures, runChaos, type ChaosOptions } from "./support/chaos-harness.ts";
import { postgresRestartSkipReason } from "./support/postgres-control.ts";
import { POSTGRES_URL, postgresSkipReason } from "./support/postgres-server.ts";

const seed = Number(process.env["CHAOS_SEED"] ?? Math.floor(Math.random() * 2 ** 31));

const ciSize = {
  jobs: 8, workers: 2, maxConcurrency: 8, leaseMs: 4_000, seed, kills: 3, stops: 1,
  faultGapMs: [1_000, 2_500], deadlineMs: 240_000, log: (line) => console.log(line),
  ...(process.env["CHAOS_KEEP"] ? { keep: process.env["CHAOS_KEEP"] } : {}),
} satisfies Partial<ChaosOptions>;

async function run(options: ChaosOptions): Promise<void> {
  console.log(`# chaos: seed ${options.seed} (CHAOS_SEED=${options.seed} runs the same choices again)`);
  const report = await runChaos(options);
  console.log(`# chaos: ${chaosFigures(report)}`);
  assert.deepEqual(report.violations, [], `seed ${options.seed}`);
  assert.ok(report.kills >= 1, "the kills landed while work remained");
}

describe("chaos", () => {
  it("on SQLite: workers killed and stopped, a client pushing and approving at random", { timeout: 300_000 }, async () => {
    await run({ ...ciSize, store: "sqlite", restarts: 0 });
  });

  const skip = postgresSkipReason();
  it("on PostgreSQL: the same, and the server restarted with -m immediate", { timeout: 300_000, skip: skip ?? false }, async () => {
    const restarts = postgresRestartSkipReason() === undefined ? 1 : 0;
    if (!restarts) console.log(`# chaos: no database restart: ${postgresRestartSkipReason()}`);
    await run({ ...ciSize, store: { postgres: POSTGRES_URL! }, restarts });
  });
});
