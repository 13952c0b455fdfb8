/**
 * Two processes sharing one PostgreSQL database, stepping the same jobs with `statek.runJob` loops (* the worker's own multi-process tests come with the worker): every job ends DONE, each effect of each step
 * happened exactly once (the application's table counts the calls per idempotency key), and both processes
 * took part. The jobs sleep between effects, so they suspend and are woken by their timers, and the
 * processes hear each other's commits through the store's wake-up hints.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { POSTGRES_URL, freshSchema, postgresSkipReason, rawPostgres } from "./support/postgres-server.ts";

const run = promisify(execFile);
const fixture = join(import.meta.dirname, "fixtures/postgres-stepper.ts");
const JOBS = 24;

describe("two processes on one PostgreSQL database", { skip: postgresSkipReason() ?? false }, () => {
  it(`step ${JOBS} jobs with waits to DONE, each effect exactly once`, { timeout: 180_000 }, async () => {
    const url = `${POSTGRES_URL}?schema=${freshSchema()}`;
    await run(process.execPath, [fixture, url, "submit", String(JOBS)], { timeout: 60_000, env: { ...process.env, WAIT_MS: "150" } });
    const env = { ...process.env, WAIT_MS: "150" };
    const outputs = await Promise.all(["a", "b"].map((name) => run(process.execPath, [fixture, url, "run", name], { timeout: 150_000, env })));
    const steps = outputs.map(({ stdout }) => (JSON.parse(stdout.trim().split("\n").at(-1)!) as { steps: number }).steps);
    const schema = new URL(url).searchParams.get("schema")!;
    const client = await rawPostgres();
    try {
      const jobs = await client.query(`SELECT status, exit_status FROM "${schema}".jobs`);
      assert.equal(jobs.rows.length, JOBS);
      for (const row of jobs.rows) assert.equal(row["status"], "DONE", JSON.stringify(row));
      const effects = await client.query(`SELECT job, i, calls, process FROM "${schema}".effects ORDER BY job, i`);
      assert.equal(effects.rows.length, JOBS * 3, "three effects per job");
      assert.deepEqual(effects.rows.filter((row) => row["calls"] !== 1), [], "no effect repeated");
      const perJob = new Map<string, number[]>();
      for (const row of effects.rows) perJob.set(String(row["job"]), [...(perJob.get(String(row["job"])) ?? []), Number(row["i"])]);
      for (const [job, indices] of perJob) assert.deepEqual(indices, [0, 1, 2], `job ${job}`);
      const processes = new Set(effects.rows.map((row) => row["process"]));
      assert.deepEqual([...processes].sort(), ["a", "b"], `both processes stepped jobs (steps: ${steps.join(", ")})`);
    } finally {
      await client.end();
    }
  });
});
