import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../../index.ts";
import { LeaseLostError } from "../../errors/lease-lost-error.ts";
import { createSqliteStore } from "../../store/sqlite/sqlite-store.ts";
import type { Store } from "../../store/store.ts";

/**
 * A real SQLite store whose journal traffic is recorded: what each `appendJournal` wrote (by item), how often the
 * journal was read, and whether each commit cleared it.
 */
function recordingStore(): { store: Store; writes: string[][]; reads: () => number; clears: boolean[] } {
  const store = createSqliteStore({ path: ":memory:" });
  const writes: string[][] = [];
  const clears: boolean[] = [];
  let reads = 0;
  const recording = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === "appendJournal") {
        return (...args: Parameters<Store["appendJournal"]>) => {
          writes.push(args[3].map((entry) => {
            const item = entry.data as { t: string; w?: string };
            return `${item.t}${item.w ? ` ${item.w}` : ""}`;
          }));
          return target.appendJournal(...args);
        };
      }
      if (key === "getJournal") {
        return (...args: Parameters<Store["getJournal"]>) => {
          reads++;
          return target.getJournal(...args);
        };
      }
      if (key === "commit") {
        return (...args: Parameters<Store["commit"]>) => {
          clears.push(args[0].clearJournal === true);
          return target.commit(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: recording, writes, reads: () => reads, clears };
}

describe("StepTransaction", () => {
  it("writes a cell's journal up to its last effect, the rest with the model's reply that saw it; the last cell's rest is never written", async () => {
    const { store, writes } = recordingStore();
    const sent: string[] = [];
    const send = tool({ name: "send", description: "Sends.", params: z.object({ text: z.string().describe("What.") }), run: ({ text }) => void sent.push(text) });
    const model = scriptedModel(["```ts\nconst t = Date.now()\nawait send('a')\nconst u = Math.random()\nprint(u < 1)\n```", "```ts\nexit(1)\n```"]);
    const agent = new Agent({ role: "journal", model, tools: [send] });
    const statek = await Statek.open({ store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["true"]);
      assert.deepEqual(sent, ["a"]);
      // Each model reply is durable as it arrives (a step done again does not pay its turn twice). The effect's
      // intent (and the read before it) are durable before it runs, its result before the cell goes on; the read
      // and the print after it go with the next reply, which saw them; the whole of the last cell is never written.
      assert.deepEqual(writes, [
        ["msg the model's reply of turn 1"],
        ["msg Date.now()", "intent send(…)"],
        ["done"],
        ["msg Math.random()", "msg print(…)", "msg the model's reply of turn 2"],
      ]);
      assert.equal(await store.getJournal(id), null);
    } finally {
      await statek.close();
    }
  });

  it("neither reads nor clears a journal it knows is empty: its lease was held since a commit of its own cleared it", async () => {
    const { store, writes, reads, clears } = recordingStore();
    const sent: string[] = [];
    const send = tool({ name: "send", description: "Sends.", params: z.object({ text: z.string().describe("What.") }), run: ({ text }) => void sent.push(text) });
    const model = scriptedModel(["```ts\nconst a = 1\na\n```", "```ts\nawait send('b')\nprint(Date.now() > 0)\n```", "```ts\nexit(a)\n```"]);
    const agent = new Agent({ role: "journal-empty", model, tools: [send] });
    const statek = await Statek.open({ store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["1", "true"]);
      assert.deepEqual(sent, ["b"]);
      // Step 1 reads the journal (nothing is known of it under a new lease), journals its reply and clears it;
      // steps 2 and 3 need no read, journal their replies (step 3 its effect's entries first) and clear; step 4,
      // which asks no model, neither reads nor clears.
      assert.equal(reads(), 1);
      assert.deepEqual(clears, [true, true, true, false]);
      assert.deepEqual(writes, [
        ["msg the model's reply of turn 1"],
        ["msg print(…)", "msg the model's reply of turn 2"],
        ["intent send(…)"],
        ["done"],
        ["msg Date.now()", "msg print(…)", "msg the model's reply of turn 3"],
      ]);
      assert.equal(await store.getJournal(id), null);
    } finally {
      await statek.close();
    }
  });

  it("reads the journal again in a step under a new lease", async () => {
    const { store, reads } = recordingStore();
    const model = scriptedModel(["```ts\n1\n```", "```ts\n2\n```", "```ts\nexit()\n```"]);
    const agent = new Agent({ role: "journal-new-lease", model });
    const statek = await Statek.open({ store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      // Each statek.step claims and releases its own lease: nothing is known of the journal at its start, and
      // each reads it (the first for a reply an earlier attempt may have journaled, the others for that and the cell).
      for (let step = 0; step < 4; step++) await statek.step(id);
      assert.equal((await statek.getJob(id))?.status, "DONE");
      assert.equal(reads(), 4);
    } finally {
      await statek.close();
    }
  });

  it("pays for no model call once another worker took the job over while this process was stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-confirm-held-"));
    const file = join(dir, "statek.db");
    const realNow = Date.now;
    // Another worker, whose clock says this one's lease ran out (this process was stopped meanwhile).
    const thief = createSqliteStore({ path: file, clock: () => realNow() + 10 * 60_000 });
    const scripted = scriptedModel(["```ts\nexit(1)\n```"]);
    let calls = 0;
    // A model whose first attempt fails retryably: the step waits before the second, and is stopped in that wait.
    const model: LanguageModelV4 = {
      specificationVersion: scripted.specificationVersion, provider: scripted.provider, modelId: scripted.modelId, supportedUrls: scripted.supportedUrls,
      doGenerate: (options) => (++calls === 1 ? Promise.reject(Object.assign(new Error("overloaded"), { isRetryable: true })) : scripted.doGenerate(options)),
      doStream: (options) => (++calls === 1 ? Promise.reject(Object.assign(new Error("overloaded"), { isRetryable: true })) : scripted.doStream(options)),
    };
    const agent = new Agent({ role: "stopped-worker", model });
    let jobId = "";
    const statek = await Statek.open({
      store: file, agents: [agent], leaseMs: 60_000,
      models: {
        initialDelayMs: 1,
        sleep: async () => {
          assert.ok(await thief.claimJob(jobId, "thief", 60_000), "the other worker took the job over");
          // This process's clock jumps, as it does for a process resumed after SIGSTOP.
          Date.now = () => realNow() + 5 * 60_000;
        },
      },
    });
    try {
      jobId = (await statek.submitJob(agent)).id;
      await assert.rejects(statek.step(jobId), LeaseLostError);
      assert.equal(calls, 1, "the second attempt was not made: the turn is the new holder's to ask for");
    } finally {
      Date.now = realNow;
      await statek.close();
      await thief.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
