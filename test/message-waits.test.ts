/**
 * A pushed message always reaches the wait that is its own, whenever the push lands against the step that
 * opens the wait and whatever happens to the pusher after its commit: the job is runnable again (its `wakeAt`
 * due), never `SUSPENDED` for good with the message in its history. The pusher is a second `Statek` on the same
 * SQLite file (it shares nothing in memory with the stepping one), as a web server pushing for a worker would be.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function withFile<T>(body: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "statek-message-waits-"));
  try {
    return await body(join(dir, "statek.db"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("message waits", () => {
  it("a push to a job suspended on waitForMessage wakes it in the push's own commit (nothing after the commit can lose it)", async () => {
    await withFile(async (file) => {
      const agent = new Agent({ role: "listener", model: scriptedModel([ts("const m = await waitForMessage()\nexit(m)"), ts("exit('asked again')")]) });
      const statek = await Statek.open({ store: file, agents: [agent] });
      const client = await Statek.open({ store: file });
      try {
        const { id } = await statek.submitJob(agent);
        assert.equal((await statek.runJob(id)).status, "SUSPENDED");
        assert.equal((await statek.store.getJob(id))?.wakeAt, null, "it waits for nothing but the message");
        // Any store call of the pusher after its commit fails, as when its database goes away right then.
        let committed = false;
        const commit = client.store.commit.bind(client.store);
        client.store.commit = async (change) => {
          if (committed) throw new Error("the connection was lost");
          const result = await commit(change);
          committed = true;
          return result;
        };
        client.store.settleFuture = async () => {
          throw new Error("the connection was lost");
        };
        await client.pushMessage(id, "hello");
        const row = await statek.store.getJob(id);
        assert.ok(row?.wakeAt !== null && row!.wakeAt! <= Date.now(), `a worker would step it now (wakeAt ${row?.wakeAt})`);
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.equal(view.exitStatus, "hello");
      } finally {
        await client.close();
        await statek.close();
      }
    });
  });

  it("a message pushed while the step that waits for it runs, before it opens the wait, wakes the job its step suspends", async () => {
    await withFile(async (file) => {
      const client = await Statek.open({ store: file });
      const poke = tool({ name: "poke", description: "The user writes meanwhile.", params: z.object({}), run: async (_args, ctx) => void (await client.pushMessage(ctx.job.id, "hello")) });
      const agent = new Agent({ role: "listener", tools: [poke], model: scriptedModel([ts("await poke()\nconst m = await waitForMessage()\nexit(m)"), ts("exit('asked again')")]) });
      const statek = await Statek.open({ store: file, agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        // The model's reply is committed first; the next step runs the cell, whose commit loses to the push and
        // is rebased over it. Each time it stops SUSPENDED, a worker must find it due.
        let view = await statek.runJob(id);
        for (let steps = 0; view.status === "SUSPENDED" && steps < 3; steps++) {
          const row = await statek.store.getJob(id);
          assert.ok(row?.wakeAt !== null && row!.wakeAt! <= Date.now(), `the message is there, so a worker must step it again (wakeAt ${row?.wakeAt})`);
          view = await statek.runJob(id);
        }
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.equal(view.exitStatus, "hello");
        assert.equal(view.history.filter((record) => record.kind === "user-message").length, 1);
      } finally {
        await statek.close();
        await client.close();
      }
    });
  });
});
