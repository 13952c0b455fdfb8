import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { renderPrompt } from "../../docs/render-prompt.ts";
import { Agent, Statek, scriptedModel, tool, type PostProcessor, type ScriptedTurn, type Tool } from "../../index.ts";
import { registerEnum } from "../../tools/enum-members.ts";
import { buildMessages } from "./build-messages.ts";
import { chatStyleRules } from "../../agents/chat-styles/chat-styles.ts";
import { countActions } from "./count-actions.ts";
import type { HistoryRecord } from "../history/history.ts";
import { historyRecord } from "../history/history-codec.ts";
import { PromptMemory } from "./prompt-memory.ts";
import { requestTools } from "./request-tools.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

const SCRIPT: ScriptedTurn[] = [
  ts("const a = 1\nprint('hello')\na"),
  { text: "Checking.", toolCalls: [{ name: "lookup", args: { key: "x" } }, { name: "lookup", args: { key: "fail" } }] },
  ts("// @ts-expect-error: a NameError when it runs\nundefinedThing()"),
  { reasoning: "thinking", text: ts("let b = [a, 2]\nb") },
  "No code this time.",
  ts("console.log('x'.repeat(3))"),
  ts("exit(b.length)"),
];

/** Runs the script as one job, a message pushed between two steps; returns what the model was sent. */
async function runScript(warmJobs: number) {
  const model = scriptedModel(SCRIPT);
  const lookup = tool({
    name: "lookup",
    description: "Looks a key up.",
    params: z.object({ key: z.string().describe("The key.") }),
    run: ({ key }) => {
      if (key === "fail") throw new Error("no such key");
      return `value of ${key}`;
    },
  });
  // A post-processor that reads the action count, so a wrong count would show in the prompts.
  const counter: PostProcessor = { name: "Counter", process: (_draft, context) => ({ note: `actions so far: ${context.actions}` }) };
  const agent = new Agent({
    role: "memory",
    model,
    tools: [lookup],
    systemPrompt: "Tools:\n{brief_tools}\n{detailed_tools}\nVariables: {shared_var_names}, mode {mode}",
    metadata: { LLM_TOOLS_SCOPE: "APPLICATION" },
    postProcessors: [counter],
  });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], warmJobs });
  try {
    const { id } = await statek.submitJob(agent, { vars: { start: 5 }, params: { mode: "strict" } });
    for (let step = 0; step < SCRIPT.length + 2; step++) {
      const view = await statek.step(id);
      if (step === 3) await statek.pushMessage(id, "please hurry");
      if (view.status === "DONE") break;
    }
    const view = await statek.getJob(id);
    return { requests: model.requests, view };
  } finally {
    await statek.close();
  }
}

describe("PromptMemory", () => {
  it("gives a warm job exactly the requests a job built from scratch every step gets", async () => {
    const warm = await runScript(8);
    const cold = await runScript(0);
    assert.equal(warm.view?.status, "DONE");
    assert.equal(warm.requests.length, SCRIPT.length);
    assert.equal(JSON.stringify(warm.requests), JSON.stringify(cold.requests));
    assert.deepEqual(warm.requests, cold.requests);
    // What was sent is what the stored history gives when built from scratch.
    const history = warm.view!.history;
    const responses = history.flatMap((record, index) => (record.kind === "model-response" ? [index] : []));
    warm.requests.forEach((request, turn) => {
      const prefix = history.slice(0, responses[turn]);
      assert.deepEqual(request.messages, buildMessages(prefix, { style: chatStyleRules("MARKDOWN"), provider: "scripted" }));
    });
    assert.match(warm.requests[0]!.system, /mode strict/);
    assert.ok(warm.requests.at(-1)!.messages.some((message) => JSON.stringify(message).includes("actions so far: 5")));
  });

  it("renders the system prompt again when what it is made from changed", () => {
    const memory = new PromptMemory();
    class Level {
      static readonly LOW = new Level();
      static readonly HIGH = new Level();
    }
    const setLevel = tool({ name: "setLevel", description: "Sets it.", params: z.object({ level: z.instanceof(Level).describe("The level.") }), run: () => {} });
    const other = tool({ name: "other", description: "Another.", run: () => {} });
    const template = "{detailed_tools}\n{shared_var_names} {mode}";
    const sharedVars = [{ name: "a", type: "number" }];
    const context: { tools: Tool[]; sharedVars: typeof sharedVars; params: Record<string, unknown> } = { tools: [setLevel], sharedVars, params: { mode: "one" } };
    const check = (ctx: typeof context, text = template) => assert.equal(memory.system(text, ctx), renderPrompt(text, ctx));
    check(context);
    check({ ...context, tools: [setLevel] });
    check({ ...context, tools: [setLevel, other] });
    check({ ...context, params: { mode: "two" } });
    check({ ...context, sharedVars: [{ name: "b", type: "string" }] });
    check(context, `${template}!`);
    const before = memory.system(template, context);
    registerEnum(Level);
    check(context);
    assert.notEqual(memory.system(template, context), before, "a registered enum shows in the declaration");
  });

  it("counts actions from where it stopped, and from scratch for a history that is not the one it counted", () => {
    const style = chatStyleRules("MD_DIALOG");
    const records: HistoryRecord[] = [];
    const usage = { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 };
    const reply = (turn: number, text: string, code: string | null, calls = 0) => historyRecord(records.length, "model-response", turn, {
      turn, text, code, reasoning: [], usage, model: "scripted/x",
      toolCalls: Array.from({ length: calls }, (_, index) => ({ id: `c${turn}-${index}`, name: "t", args: {} })),
    });
    const memory = new PromptMemory();
    const add = (record: HistoryRecord) => records.push(record);
    add(reply(1, "Hi there", null));
    assert.equal(memory.actions(records, style), countActions(records, style));
    add(reply(2, "```ts\n1\n```", "1", 2));
    add(historyRecord(records.length, "user-message", 3, { text: "ok" }));
    assert.equal(memory.actions(records, style), countActions(records, style));
    add(reply(3, "```ts\n// nothing\n```", "// nothing"));
    assert.equal(memory.actions(records, style), countActions(records, style));
    const other = records.slice(0, 1);
    assert.equal(memory.actions(other, style), countActions(other, style));
    const markdown = chatStyleRules("MARKDOWN");
    assert.equal(memory.actions(records, markdown), countActions(records, markdown));
  });
});

describe("PromptMemory.tools", () => {
  const make = (name: string) => tool({ name, description: `${name} it.`, params: z.object({ when: z.date().describe("When.") }), run: () => {} });
  const agent = new Agent({ role: "tools-memory", tools: [make("first"), make("second")] });
  const scoped = { LLM_TOOLS_SCOPE: "APPLICATION" };

  it("gives what requestTools gives, frozen, and the same payloads again while nothing they are made from changed", () => {
    const memory = new PromptMemory();
    const payloads = memory.tools(agent, "MARKDOWN", scoped, "openai");
    assert.deepEqual(payloads, requestTools(agent, "MARKDOWN", scoped, "openai"));
    assert.ok(Object.isFrozen(payloads) && Object.isFrozen(payloads[0]!.inputSchema));
    assert.equal(memory.tools(agent, "MARKDOWN", { ...scoped }, "openai"), payloads);
  });

  it("makes them again for another scope, schema profile, provider, style, agent or enum registration", () => {
    const memory = new PromptMemory();
    const other = new Agent({ role: "tools-memory-2", tools: [make("third")] });
    const cases: Array<[typeof agent, "MARKDOWN" | "DIRECT", Record<string, string>, string]> = [
      [agent, "MARKDOWN", scoped, "openai"],
      [agent, "MARKDOWN", { LLM_TOOLS_SCOPE: "APPLICATION-second" }, "openai"],
      [agent, "MARKDOWN", { ...scoped, TOOLS_SCHEMA: "plain" }, "openai"],
      [agent, "MARKDOWN", scoped, "anthropic"],
      [agent, "DIRECT", scoped, "anthropic"],
      [other, "DIRECT", scoped, "anthropic"],
    ];
    for (const [who, style, metadata, provider] of cases) {
      assert.deepEqual(memory.tools(who, style, metadata, provider), requestTools(who, style, metadata, provider));
    }
    const before = memory.tools(agent, "MARKDOWN", scoped, "openai");
    class Mood {
      static readonly CALM = new Mood();
    }
    registerEnum(Mood);
    assert.notEqual(memory.tools(agent, "MARKDOWN", scoped, "openai"), before);
  });

  it("throws as requestTools does for a bad setting, every time", () => {
    const memory = new PromptMemory();
    for (let attempt = 0; attempt < 2; attempt++) {
      assert.throws(() => memory.tools(agent, "MARKDOWN", { ...scoped, TOOLS_SCHEMA: "loose" }, "openai"), /TOOLS_SCHEMA/);
    }
  });
});
