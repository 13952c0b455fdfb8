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
import { spawn } from "node:child_process";
import { join } from "node:path";
import { chaosFigures, runChaos, type ChaosOptions, type ChaosReport } from "./support/chaos-harness.ts";
import { postgresSkipReason } from "./support/postgres-server.ts";

const withPostgres = join(import.meta.dirname, "..", "scripts", "with-postgres.ts");
const chaosRun = join(import.meta.dirname, "fixtures", "chaos-run.ts");

// One seed in the suite, so its runs make the same choices (their timing still varies); CHAOS_SEED picks another.
const seed = Number(process.env["CHAOS_SEED"] ?? 20_261_204);

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

  // On a server of its own (a private one from scripts/with-postgres.ts): the restart must not cut the
  // connections of the test files running beside this one.
  const skip = postgresSkipReason();
  it("on PostgreSQL: the same, and the server restarted with -m immediate", { timeout: 300_000, skip: skip ?? false }, async () => {
    console.log(`# chaos: seed ${seed} (CHAOS_SEED=${seed} runs the same choices again)`);
    const { keep: _keep, log: _log, ...options } = { ...ciSize, restarts: 1 };
    const child = spawn(process.execPath, [withPostgres, process.execPath, chaosRun, JSON.stringify(options)], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    const lines = output.trim().split("\n");
    for (const line of lines) if (line.startsWith("# chaos:")) console.log(line);
    const last = lines.findLast((line) => line.startsWith('{"report":'));
    assert.ok(code === 0 && last, `the run on a private server failed (exit ${code}): ${output.slice(-3000)}`);
    const report = (JSON.parse(last) as { report: ChaosReport }).report;
    console.log(`# chaos: ${chaosFigures(report)}`);
    assert.deepEqual(report.violations, [], `seed ${seed}`);
    assert.equal(report.restarts, 1, "the server was restarted");
    assert.ok(report.kills >= 1, "the kills landed while work remained");
  });
});
