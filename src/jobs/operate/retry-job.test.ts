import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { InvalidJobStatusError } from "../../errors/invalid-job-status-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import { scriptedModel } from "../../models/scripted-model.ts";
import { tool } from "../../tools/tool.ts";
import { Agent } from "../../agents/agent.ts";
import { Statek } from "../statek.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

describe("statek.retryJob", () => {
  it("resumes a job that ran out of turns where it stood, with a fresh allowance, its variables kept", async () => {
    const agent = new Agent({
      role: "slow-thinker",
      harness: { maxTurns: 1 },
      model: scriptedModel([ts("const progress = 1\nprint('step one')"), ts("exit(progress + 1)")]),
    });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const failed = await statek.runJob(id);
      assert.equal(failed.status, "FAILED");
      assert.match(failed.error ?? "", /turn/);
      const retried = await statek.retryJob(id);
      assert.equal(retried.status, "STARTED");
      assert.equal(retried.error, null);
      assert.deepEqual(retried.history.at(-1)?.data, { status: "STARTED", reason: "retried" });
      const done = await statek.runJob(id);
      assert.equal(done.status, "DONE");
      assert.equal(done.exitStatus, 2, "the variables of the failed run were kept");
      assert.deepEqual(done.console, ["step one"], "nothing ran twice");
    } finally {
      await statek.close();
    }
  });

  it("runs a failed warmup block again", async () => {
    let up = false;
    const service = tool({
      name: "connect", description: "Connect to the service.", params: z.object({}),
      run: () => {
        if (!up) throw new Error("service unavailable");
        return "connected";
      },
    });
    const agent = new Agent({ role: "warm", tools: [service], warmup: "const link = await connect()", model: scriptedModel([ts("exit(link)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const failed = await statek.runJob(id);
      assert.equal(failed.status, "FAILED");
      assert.match(failed.error ?? "", /^warmup block 1 of 1 failed: Error: service unavailable/);
      up = true;
      assert.equal((await statek.retryJob(id)).status, "WARMING_UP");
      const done = await statek.runJob(id);
      assert.equal(done.status, "DONE");
      assert.equal(done.exitStatus, "connected");
    } finally {
      await statek.close();
    }
  });

  it("refuses a job that has not failed, naming its status; an unknown job is NoSuchJobError", async () => {
    const agent = new Agent({ role: "fine", model: scriptedModel([ts("exit(1)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      await assert.rejects(statek.retryJob(id), (error: unknown) => {
        assert.ok(error instanceof InvalidJobStatusError);
        assert.equal(error.message, `retryJob: job ${id} is READY; only a FAILED job can be retried`);
        return true;
      });
      await statek.runJob(id);
      await assert.rejects(statek.retryJob(id), /is DONE; only a FAILED job can be retried/);
      await assert.rejects(statek.retryJob("missing"), NoSuchJobError);
    } finally {
      await statek.close();
    }
  });
});
