/**
 * A turn is paid once: a step whose commit loses to a message pushed meanwhile keeps the model
 * reply it already has and rebases over the message — the model is never asked again for the same turn. The
 * message is in the history once; the reply that did not see it is marked so, and the model reads the message
 * after that reply; a dialog turn that ended meanwhile is opened again to answer it. The pushing client is a
 * second `Statek` on the same SQLite file (it shares nothing in memory with the stepping one).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { LanguageModelV4CallOptions, LanguageModelV4StreamResult } from "@ai-sdk/provider";
import { z } from "zod";
import { Agent, ScriptedModel, Statek, tool, type ScriptedTurn } from "../src/index.ts";
import { openStore, type Store } from "../src/store/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** A scripted model that runs `before(n)` as its n-th call starts (a user typing while the model answers). */
class SlowModel extends ScriptedModel {
  calls = 0;
  readonly #before: (call: number) => Promise<void>;
  constructor(turns: ScriptedTurn[], before: (call: number) => Promise<void>) {
    super(turns);
    this.#before = before;
  }
  override async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    await this.#before(++this.calls);
    return super.doStream(options);
  }
}

/** The texts of a request's messages, in order, by role. */
function transcript(messages: ReadonlyArray<{ role: string; content: unknown }>): string[] {
  return messages.map((message) => {
    const parts = typeof message.content === "string" ? [{ text: message.content }] : (message.content as Array<{ text?: string }>);
    return `${message.role}: ${parts.map((part) => part.text ?? "").join("")}`;
  });
}

/** The store of `file`, whose journal write of a model's reply aborts `abort` once it is durable. */
async function abortingAfterReply(file: string, abort: AbortController): Promise<Store> {
  const store = await openStore(file);
  return new Proxy(store, {
    get(target, property) {
      if (property === "appendJournal") {
        return async (...args: Parameters<Store["appendJournal"]>) => {
          await target.appendJournal(...args);
          if (JSON.stringify(args[3]).includes('"model-reply"')) abort.abort(new Error("stopping"));
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function withFile<T>(body: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "statek-turns-"));
  try {
    return await body(join(dir, "statek.db"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("a turn is paid once", () => {
  it("a message pushed while a step runs its cell: the step's reply is kept and committed after the message", async () => {
    await withFile(async (file) => {
      const client = await Statek.open({ store: file });
      const poke = tool({ name: "poke", description: "A user writes meanwhile.", params: z.object({}), run: async (_args, ctx) => void (await client.pushMessage(ctx.job.id, "also check Friday")) });
      const model = new SlowModel([ts("await poke()\nprint('poked')"), ts("print('second')"), ts("exit(42)"), ts("exit('asked again')")], async () => {});
      const agent = new Agent({ role: "worker", model, tools: [poke] });
      const statek = await Statek.open({ store: file, agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.equal(view.exitStatus, 42);
        assert.equal(model.calls, 3, "three turns, three model calls: none paid twice");
        const messages = view.history.filter((record) => record.kind === "user-message");
        assert.equal(messages.length, 1, "the message is in the history once");
        const second = view.history.find((record) => record.kind === "model-response" && record.data.turn === 2);
        assert.ok(second?.kind === "model-response");
        assert.deepEqual(second.data.unseen, [messages[0]!.seq], "the reply that did not see the message says so");
        assert.ok(messages[0]!.seq < second.seq);
        // The third request shows the message after the second reply, where it came.
        const third = transcript(model.requests[2]!.messages);
        const reply = third.findIndex((line) => line.startsWith("assistant:") && line.includes("print('second')"));
        const pushed = third.findIndex((line) => line.includes("also check Friday"));
        assert.ok(reply >= 0 && pushed > reply, third.join("\n"));
      } finally {
        await statek.close();
        await client.close();
      }
    });
  });

  it("a step that cannot commit after its reply came is done again with the reply it journaled, not a second call", async () => {
    await withFile(async (file) => {
      const abort = new AbortController();
      // The step is given up just after its reply was journaled (its worker stopping, its store gone past the
      // retries): nothing is committed.
      const model = new SlowModel([ts("print('ran once')\nexit(7)"), ts("exit('asked again')")], async () => {});
      const agent = new Agent({ role: "worker", model });
      const store = await abortingAfterReply(file, abort);
      const statek = await Statek.open({ store, agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        await assert.rejects(statek.step(id, { signal: abort.signal }));
        assert.equal((await statek.getJob(id))?.status, "READY", "nothing was committed");
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.equal(view.exitStatus, 7);
        assert.equal(model.calls, 1, "the turn was paid once");
        assert.deepEqual(view.console, ["ran once"]);
        assert.equal(view.history.filter((record) => record.kind === "model-response").length, 1);
      } finally {
        await statek.close();
        await store.close();
      }
    });
  });

  it("a journaled reply taken after a message arrived is marked as not having seen it, and the model reads the message after it", async () => {
    await withFile(async (file) => {
      const abort = new AbortController();
      const model = new SlowModel([ts("print('first')"), ts("exit(7)"), ts("exit('asked again')")], async () => {});
      const agent = new Agent({ role: "worker", model });
      const store = await abortingAfterReply(file, abort);
      const statek = await Statek.open({ store, agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        await assert.rejects(statek.step(id, { signal: abort.signal }));
        await statek.pushMessage(id, "also check Friday");
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.equal(view.exitStatus, 7);
        assert.equal(model.calls, 2, "two turns, two model calls");
        const message = view.history.find((record) => record.kind === "user-message");
        const first = view.history.find((record) => record.kind === "model-response" && record.data.turn === 1);
        assert.ok(message && first?.kind === "model-response");
        assert.deepEqual(first.data.unseen, [message.seq]);
        const second = transcript(model.requests[1]!.messages);
        const reply = second.findIndex((line) => line.startsWith("assistant:") && line.includes("print('first')"));
        const pushed = second.findIndex((line) => line.includes("also check Friday"));
        assert.ok(reply >= 0 && pushed > reply, second.join("\n"));
      } finally {
        await statek.close();
        await store.close();
      }
    });
  });

  it("a dialog reply that ends the turn while a message arrives: delivered, not asked again, and the turn opens for the message", async () => {
    await withFile(async (file) => {
      const client = await Statek.open({ store: file });
      let jobId = "";
      const model = new SlowModel(["Hello! How can I help?", "Yes, I am here.", "(asked again)"], async (call) => {
        if (call === 1) await client.pushMessage(jobId, "are you there?");
      });
      const sent: string[] = [];
      const agent = new Agent({ role: "chat", model, metadata: { CHAT_STYLE: "MD_DIALOG" }, onMessage: (body) => void sent.push(body) });
      const statek = await Statek.open({ store: file, agents: [agent] });
      try {
        jobId = (await statek.submitJob(agent, { message: "hi" })).id;
        const view = await statek.runJob(jobId);
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.equal(model.calls, 2, "two replies, two calls");
        assert.deepEqual(sent, ["Hello! How can I help?", "Yes, I am here."], "each reply reached the user once");
        const second = transcript(model.requests[1]!.messages);
        const hello = second.findIndex((line) => line.includes("Hello! How can I help?"));
        const question = second.findIndex((line) => line.includes("are you there?"));
        assert.ok(hello >= 0 && question > hello, `the model read the message after its first reply:\n${second.join("\n")}`);
        assert.equal(view.history.filter((record) => record.kind === "user-message").length, 2, "hi, and the pushed message, once each");
      } finally {
        await statek.close();
        await client.close();
      }
    });
  });
});
