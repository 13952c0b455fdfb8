/**
 * Warm sessions are bounded by the memory their VMs hold as well as by count: a VM keeps
 * the memory its cells once touched, so idle warm jobs are let go, least recently stepped first, once their
 * VMs together pass `warmMemoryBytes`. Observed from outside: a job let go restores cold (a new VM).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scriptedModel } from "../../models/scripted-model.ts";
import type { Executor } from "../../workspace/executor.ts";
import { createQuickJsExecutor } from "../../workspace/quickjs/quickjs-executor.ts";
import { Agent } from "../../agents/agent.ts";
import { Statek } from "../statek.ts";

const MiB = 1024 * 1024;
const ts = (code: string) => "```ts\n" + code + "\n```";

/** The QuickJS executor, counting the VMs it makes. */
function countingExecutor(): { executor: Executor; made: () => number } {
  const inner = createQuickJsExecutor();
  let made = 0;
  return {
    executor: { name: inner.name, isolated: inner.isolated, createVm: (options) => (made++, inner.createVm(options)) },
    made: () => made,
  };
}

/** Steps two jobs whose VMs touched ~40 MiB each, then job A again; returns how many VMs were made. */
async function twoHeavyJobs(warmMemoryBytes: number | undefined): Promise<number> {
  const counting = countingExecutor();
  const agent = (role: string) => new Agent({
    role,
    model: scriptedModel([ts("const touched = new Uint8Array(40 * 1024 * 1024).fill(1).length"), ts("exit(touched)")]),
  });
  const first = agent("heavy-a");
  const second = agent("heavy-b");
  const statek = await Statek.open({ store: ":memory:", agents: [first, second], executor: counting.executor, ...(warmMemoryBytes === undefined ? {} : { warmMemoryBytes }) });
  try {
    const a = await statek.submitJob(first);
    await statek.runJob(a.id, { maxSteps: 2 });
    const b = await statek.submitJob(second);
    await statek.runJob(b.id, { maxSteps: 2 });
    const view = await statek.runJob(a.id);
    assert.equal(view.exitStatus, 40 * MiB, view.error ?? view.console.join("\n"));
    return counting.made();
  } finally {
    await statek.close();
  }
}

describe("warm sessions", () => {
  it("are let go, least recently stepped first, beyond warmMemoryBytes", async () => {
    assert.equal(await twoHeavyJobs(undefined), 2, "under the default 256 MiB both stay warm");
    assert.equal(await twoHeavyJobs(64 * MiB), 3, "under 64 MiB job A was let go and restored cold");
  });

  it("refuses a bad bound when opening", async () => {
    await assert.rejects(Statek.open({ store: ":memory:", warmMemoryBytes: -1 }), /warmMemoryBytes must be a non-negative integer, got -1/);
  });
});
