/**
 * DBOS Transact's side of "durable no-op steps per second": `workflows` workflows at once, each running
 * `stepsEach` checkpointed no-op steps (`DBOS.runStep`), on the PostgreSQL server `url` (its system database is
 * made there). Steps per second over the whole run.
 */
import { loadPeer } from "./peer-modules.ts";

interface DbosModule {
  DBOS: {
    setConfig(config: { name: string; systemDatabaseUrl: string; logLevel?: string }): void;
    launch(): Promise<void>;
    shutdown(): Promise<void>;
    registerWorkflow<A extends unknown[], R>(fn: (...args: A) => Promise<R>, config: { name: string }): (...args: A) => Promise<R>;
    runStep<R>(fn: () => Promise<R>, config?: { name?: string }): Promise<R>;
    startWorkflow<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<{ getResult(): Promise<R> }>;
  };
}

/** DBOS's steps per second in each of `runs` runs (one launch: DBOS registers a workflow once a process), or why it was not measured. */
export async function dbosStepsPerSecond(url: string, workflows: number, stepsEach: number, runs: number): Promise<{ stepsPerSecond: number[]; version: string } | { missing: string }> {
  const peer = loadPeer<DbosModule>("@dbos-inc/dbos-sdk");
  if ("missing" in peer) return peer;
  const { DBOS } = peer.module;
  const database = new URL(url);
  database.pathname = "/statek_bench_dbos";
  DBOS.setConfig({ name: "statek-bench", systemDatabaseUrl: database.toString(), logLevel: "error" });
  const noop = async () => 1;
  const loop = DBOS.registerWorkflow(async (steps: number) => {
    let total = 0;
    for (let step = 0; step < steps; step++) total += await DBOS.runStep(noop, { name: "noop" });
    return total;
  }, { name: "noop-loop" });
  await DBOS.launch();
  try {
    // A warm-up run, so pools are open and statements planned.
    await Promise.all(Array.from({ length: Math.min(workflows, 10) }, async () => (await DBOS.startWorkflow(loop)(5)).getResult()));
    const rates: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      await Promise.all(Array.from({ length: workflows }, async () => (await DBOS.startWorkflow(loop)(stepsEach)).getResult()));
      rates.push((workflows * stepsEach) / ((performance.now() - started) / 1000));
    }
    return { stepsPerSecond: rates, version: peer.version };
  } finally {
    await DBOS.shutdown();
  }
}
