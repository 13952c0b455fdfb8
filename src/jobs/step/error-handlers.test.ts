/**
 * Error handlers: registered by a tool's result, stored by name in the job,
 * run in order with the error when the job ends FAILED — in this process or another. `§10.N` in a test name numbers
 * the scenario it covers.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { scriptedModel } from "../../models/scripted-model.ts";
import { callTool } from "../../tools/call-tool.ts";
import { DEFER_ERROR_HANDLER, errorHandler, type ErrorHandler } from "../../tools/error-handler.ts";
import { tool, type ToolContext } from "../../tools/tool.ts";
import { Agent } from "../../agents/agent.ts";
import type { ErrorHandlerRecord } from "../history/history.ts";
import type { JobView } from "../history/job-view.ts";
import { Statek } from "../statek.ts";

class Claim {
  id: string;
  constructor(id: string) {
    this.id = id;
  }
}

function recorder() {
  const runs: Array<{ handler: string; context: unknown; error: unknown }> = [];
  const make = (name: string, fail = false) => errorHandler({
    name,
    run: (context: unknown, error?: unknown) => {
      runs.push({ handler: name, context, error });
      if (fail) throw new Error(`${name} could not clean up`);
    },
  });
  return { runs, make };
}

function claimTool(handler: ErrorHandler, options: { async?: boolean; name?: string } = {}) {
  return tool({
    name: options.name ?? "claim",
    description: "Claim a ticket.",
    params: z.object({ id: z.string().describe("Ticket id.") }),
    errorHandler: handler,
    run: ({ id }) => (options.async ? Promise.resolve(`claimed ${id}`) : `claimed ${id}`),
  });
}

const handlerRecords = (view: JobView) => view.history.flatMap((record) => (record.kind === "error-handler" ? [record.data as ErrorHandlerRecord] : []))
  .map(({ durationMs: _, ...rest }) => rest);

async function failingJob(tools: ReturnType<typeof tool>[], code: string, options: { statek?: Statek; errorHandlers?: ErrorHandler[] } = {}) {
  const agent = new Agent({ role: "claimer", tools, harness: { maxTurns: 1 }, model: scriptedModel([`\`\`\`ts\n${code}\n\`\`\``]) });
  const statek = options.statek ?? await Statek.open({ store: ":memory:", agents: [agent], errorHandlers: options.errorHandlers ?? [] });
  const view = await statek.runJob((await statek.submitJob(agent)).id);
  return { statek, view };
}

describe("error handler registration", () => {
  const ctx: ToolContext = {
    job: { id: "j", role: "r", metadata: {} },
    agent: { role: "r", metadata: {} },
    print: () => undefined,
    variable: () => undefined,
    signal: new AbortController().signal,
    idempotencyKey: "j:0:0",
    future: () => {
      throw new Error("no futures here");
    },
    startJob: () => {
      throw new Error("no child jobs here");
    },
  };

  it("§10.97 a sync or async tool registers its handler with its result, just before returning it", async () => {
    const { make } = recorder();
    const handler = make("_release");
    const registered: Array<[string, unknown]> = [];
    const options = { origin: "code" as const, ctx, record: () => undefined, registerErrorHandler: (h: ErrorHandler, context: unknown) => registered.push([h.name, context]) };
    assert.equal(callTool(claimTool(handler), ["t1"], options), "claimed t1");
    assert.equal(await callTool(claimTool(handler, { async: true }), ["t2"], options), "claimed t2");
    assert.deepEqual(registered, [["_release", "claimed t1"], ["_release", "claimed t2"]]);
    assert.equal(callTool(claimTool(handler), ["t3"], { origin: "code", ctx, record: () => undefined }), "claimed t3", "no job to register on: the tool just returns");
  });

  it("a tool that throws registers nothing", () => {
    const { make } = recorder();
    const failing = tool({ name: "f", description: "d", errorHandler: make("_x"), run: () => { throw new Error("no"); } });
    const registered: unknown[] = [];
    assert.throws(() => callTool(failing, [], { origin: "code", ctx, record: () => undefined, registerErrorHandler: (...args) => registered.push(args) }));
    assert.deepEqual(registered, []);
  });

  it("§10.98 a result that defers registration registers when it resolves (the hook futures use)", () => {
    const { make } = recorder();
    let resolve: ((value: unknown) => void) | undefined;
    const future = { [DEFER_ERROR_HANDLER]: (register: (value: unknown) => void) => { resolve = register; } };
    const deferred = tool({ name: "later", description: "d", errorHandler: make("_later"), run: () => future });
    const registered: Array<[string, unknown]> = [];
    callTool(deferred, [], { origin: "code", ctx, record: () => undefined, registerErrorHandler: (h, context) => registered.push([h.name, context]) });
    assert.deepEqual(registered, [], "nothing yet");
    resolve!("resolved");
    assert.deepEqual(registered, [["_later", "resolved"]]);
  });
});

describe("error handlers when a job fails", () => {
  it("§10.100 a harness limit runs the handlers with the error; the job is FAILED with its reason", async () => {
    const { runs, make } = recorder();
    const { statek, view } = await failingJob([claimTool(make("_release"))], 'claim("t1")');
    try {
      assert.equal(view.status, "FAILED");
      assert.equal(view.error, "harness limit: the job used all 1 of its model turns (maxTurns) without calling exit()");
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.context, "claimed t1");
      assert.ok(runs[0]!.error instanceof Error);
      assert.equal((runs[0]!.error as Error).name, "JobFailedError");
      assert.equal((runs[0]!.error as Error).message, view.error);
      assert.deepEqual(handlerRecords(view), [{ name: "_release", outcome: "done" }]);
    } finally {
      await statek.close();
    }
  });

  it("§10.99 handlers run in registration order, each once; one that throws is logged and the others still run", async () => {
    const { runs, make } = recorder();
    const first = claimTool(make("_first", true), { name: "first" });
    const second = claimTool(make("_second"), { name: "second" });
    const { statek, view } = await failingJob([first, second], 'first("a")\nsecond("b")\nfirst("c")');
    try {
      assert.deepEqual(runs.map((run) => [run.handler, run.context]), [["_first", "claimed a"], ["_second", "claimed b"], ["_first", "claimed c"]]);
      assert.deepEqual(handlerRecords(view), [
        { name: "_first", outcome: "failed", error: "Error: _first could not clean up" },
        { name: "_second", outcome: "done" },
        { name: "_first", outcome: "failed", error: "Error: _first could not clean up" },
      ]);
      assert.equal(view.error, "harness limit: the job used all 1 of its model turns (maxTurns) without calling exit()", "the job's own error is kept");
      const row = await statek.store.getJob(view.id);
      assert.deepEqual(row!.state.errorHandlers, [], "taken off the job: they never run twice");
    } finally {
      await statek.close();
    }
  });

  it("a failed model call runs them with the model's error; a job that finishes runs none", async () => {
    const { runs, make } = recorder();
    const handler = make("_release");
    const agent = new Agent({ role: "claimer", tools: [claimTool(handler)], model: scriptedModel(['```ts\nclaim("t")\n```']) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const view = await statek.runJob((await statek.submitJob(agent)).id);
      assert.equal(view.status, "FAILED");
      assert.match(view.error!, /^model call failed: ScriptExhaustedError/);
      // The handler gets the model layer's error, which carries the provider's as its cause.
      assert.equal((runs[0]!.error as Error).name, "ModelCallError");
      assert.equal(((runs[0]!.error as Error).cause as Error).name, "ScriptExhaustedError");
      runs.length = 0;
      const done = new Agent({ role: "done", tools: [claimTool(handler)], model: scriptedModel(['```ts\nclaim("t")\nexit(1)\n```']) });
      const finished = await statek.runJob((await statek.submitJob(done)).id);
      assert.equal(finished.status, "DONE");
      assert.deepEqual(runs, []);
      assert.deepEqual(handlerRecords(finished), []);
    } finally {
      await statek.close();
    }
  });

  it("a live object as the context: a binding comes back as the object itself", async () => {
    const { runs, make } = recorder();
    const claim = new Claim("c-1");
    const takeClaim = tool({ name: "takeClaim", description: "Take the claim.", errorHandler: make("_drop"), run: () => claim });
    const agent = new Agent({ role: "binder", tools: [takeClaim], harness: { maxTurns: 1 }, model: scriptedModel(["```ts\nconst c = takeClaim()\n```"]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent], bindings: { claim } });
    try {
      await statek.runJob((await statek.submitJob(agent)).id);
      assert.equal(runs[0]!.context, claim);
    } finally {
      await statek.close();
    }
  });

  // Process A executes the cell that registers the handler and stops; process B fails the job.
  async function registerInOneProcessFailInAnother(agentB: (maxTurns: number) => Agent, agentATools: ReturnType<typeof tool>[], options: { errorHandlers?: ErrorHandler[] } = {}) {
    const dir = mkdtempSync(join(tmpdir(), "statek-handlers-"));
    const store = join(dir, "statek.db");
    try {
      const agentA = new Agent({ role: "claimer", tools: agentATools, harness: { maxTurns: 2 }, model: scriptedModel(['```ts\nclaim("t9")\n```', "```ts\n1\n```"]) });
      const a = await Statek.open({ store, agents: [agentA], warmJobs: 0 });
      const { id } = await a.submitJob(agentA);
      await a.step(id); // asks the model
      await a.step(id); // runs claim("t9"), which registers the handler, and asks again
      const row = await a.store.getJob(id);
      await a.close();
      const b = await Statek.open({ store, agents: [agentB(2)], ...(options.errorHandlers ? { errorHandlers: options.errorHandlers } : {}) });
      try {
        return { stored: row!.state.errorHandlers, view: await b.runJob(id) };
      } finally {
        await b.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("stored by name, they survive a restart: another process on the same store runs them", async () => {
    const first = recorder();
    const again = recorder();
    const { stored, view } = await registerInOneProcessFailInAnother(
      (maxTurns) => new Agent({ role: "claimer", tools: [claimTool(again.make("_release"))], harness: { maxTurns }, model: scriptedModel([]) }),
      [claimTool(first.make("_release"))],
    );
    const entries = stored as Array<{ name: string; context: string }>;
    assert.deepEqual(entries.map((entry) => entry.name), ["_release"], "in the job's state, by name");
    assert.match(entries[0]!.context, /claimed t9/, "with its context encoded for the store");
    assert.equal(view.status, "FAILED");
    assert.deepEqual(first.runs, [], "process A never failed the job");
    assert.deepEqual(again.runs.map((run) => [run.handler, run.context]), [["_release", "claimed t9"]]);
  });

  it("a handler the failing process does not know is logged as missing; Statek.open({ errorHandlers }) supplies it", async () => {
    const { runs, make } = recorder();
    const handler = make("_remote");
    const plain = (maxTurns: number) => new Agent({ role: "claimer", harness: { maxTurns }, model: scriptedModel([]) });
    const missing = await registerInOneProcessFailInAnother(plain, [claimTool(handler)]);
    assert.deepEqual(handlerRecords(missing.view), [{
      name: "_remote",
      outcome: "missing",
      error: "Error: error handler '_remote' is not registered in this process (give it to a tool of the agent, or to Statek.open({ errorHandlers }))",
    }]);
    assert.equal(missing.view.error, "harness limit: the job used all 2 of its model turns (maxTurns) without calling exit()");
    assert.equal(runs.length, 0);
    const supplied = await registerInOneProcessFailInAnother(plain, [claimTool(handler)], { errorHandlers: [handler] });
    assert.deepEqual(handlerRecords(supplied.view), [{ name: "_remote", outcome: "done" }]);
    assert.deepEqual(runs.map((run) => run.context), ["claimed t9"]);
  });

  it("two different handlers under one name are refused", async () => {
    const { make } = recorder();
    const statek = await Statek.open({ store: ":memory:", errorHandlers: [make("_same")] });
    try {
      assert.throws(() => statek.registerErrorHandler(make("_same")), { name: "TypeError", message: "registerErrorHandler: two different error handlers are named '_same'" });
    } finally {
      await statek.close();
    }
  });
});
