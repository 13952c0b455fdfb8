/**
 * Typed settings and their metadata names: `chatStyle`/`CHAT_STYLE`, `toolsScope`/`LLM_TOOLS_SCOPE`,
 * `toolsSchema`/`TOOLS_SCHEMA`, `xmlBoxConsole`/`XML_BOX_CONSOLE`, `defaultAcl`/`STATEK_DEFAULT_ACL`, a model
 * string/`MODEL`, `harness`/`MAX_…`, `postProcessors`/`POST_PROCESSORS`. One rule: the typed option wins at its
 * level; a job's settings win over its agent's, the agent's over the process's.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, FinalCheck, Statek, scriptedModel, tool, type AgentOptions, type ScriptedTurn, type SubmitJobOptions } from "../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const find = tool({
  name: "findSlot",
  description: "Find a free slot.",
  params: z.object({ after: z.date().describe("Earliest start."), minutes: z.number().optional().describe("Length.") }),
  run: () => "09:00",
});

/** Runs one job to its end; returns its view, its stored metadata and what the model saw. */
async function run(turns: ScriptedTurn[], agentOptions: Omit<AgentOptions, "role" | "model">, submit: SubmitJobOptions = {}) {
  const model = scriptedModel(turns, { provider: "openai.chat" });
  const agent = new Agent({ role: "settings", model, tools: [find], ...agentOptions });
  const statek = await Statek.open({ store: ":memory:", agents: [agent] });
  const { id } = await statek.submitJob(agent, { message: "Hi.", ...submit });
  const view = await statek.runJob(id);
  const row = await statek.store.getJob(id);
  await statek.close();
  return { view, metadata: row!.metadata, requests: model.requests };
}

describe("typed settings and their metadata names", () => {
  it("a typed option sets the metadata name and wins over it", () => {
    const agent = new Agent({
      role: "a",
      tools: [find],
      metadata: {
        CHAT_STYLE: "CONSOLE", LLM_TOOLS_SCOPE: "SYSTEM", TOOLS_SCHEMA: "plain", XML_BOX_CONSOLE: "OUT",
        STATEK_DEFAULT_ACL: "DENY", MODEL: "anthropic/claude-haiku-4-5", TEAM: "sales",
      },
      chatStyle: "MD_DIALOG",
      toolsScope: "APPLICATION",
      toolsSchema: "strict",
      xmlBoxConsole: "CONSOLE",
      defaultAcl: "GRANT",
      model: "openai/gpt-5-mini",
    });
    assert.deepEqual(agent.metadata, {
      CHAT_STYLE: "MD_DIALOG", LLM_TOOLS_SCOPE: "APPLICATION", TOOLS_SCHEMA: "strict", XML_BOX_CONSOLE: "CONSOLE",
      STATEK_DEFAULT_ACL: "GRANT", MODEL: "openai/gpt-5-mini", TEAM: "sales",
    });
    assert.equal(agent.model, undefined, "a model string is the MODEL setting, not a model object");
  });

  it("the metadata names still work, and a job behaves the same either way", async () => {
    const turns: ScriptedTurn[] = ["Let me look.\n" + ts("print(findSlot(new Date(0)))"), "It is at 09:00."];
    const typed = await run(turns, { chatStyle: "MD_DIALOG", toolsScope: "APPLICATION", toolsSchema: "plain", xmlBoxConsole: "OUTPUT" });
    const named = await run(turns, { metadata: { CHAT_STYLE: "MD_DIALOG", LLM_TOOLS_SCOPE: "APPLICATION", TOOLS_SCHEMA: "plain", XML_BOX_CONSOLE: "OUTPUT" } });
    assert.equal(typed.view.status, "DONE", "MD_DIALOG: a reply without code ends the turn");
    assert.deepEqual(typed.requests, named.requests, "the model saw exactly the same");
    assert.deepEqual(typed.requests[1]!.tools.map((payload) => [payload.name, payload.strict]), [["findSlot", undefined]], "LLM_TOOLS_SCOPE, plain schema");
    assert.match(JSON.stringify(typed.requests[1]!.messages), /<OUTPUT>\\n<CONSOLE>\\n09:00\\n<\/CONSOLE>\\n<\/OUTPUT>/, "XML_BOX_CONSOLE");
  });

  it("harness limits: typed over MAX_… metadata, the old name limits still works, not both", async () => {
    const loop = [ts("1"), ts("2"), ts("3"), ts("exit()")];
    const typed = await run(loop, { harness: { maxTurns: 2 }, metadata: { MAX_TURNS: 1 } });
    assert.equal(typed.view.error, "harness limit: the job used all 2 of its model turns (maxTurns) without calling exit()");
    const named = await run(loop, { metadata: { MAX_TURNS: "1" } });
    assert.equal(named.view.error, "harness limit: the job used all 1 of its model turns (maxTurns) without calling exit()");
    const limited = new Agent({ role: "a", harness: { maxCost: 0.5 } });
    assert.deepEqual(limited.harness, { maxCost: 0.5 });
    assert.equal(limited.metadata.MAX_COST, undefined, "an agent's limits stay in code, not in the metadata its jobs copy");
    // `limits` is no option of an agent (plain JavaScript gets past the type): the error names the one that is.
    assert.throws(() => new Agent({ role: "a", ...({ limits: { maxTurns: 1 } } as object) }), {
      name: "TypeError",
      message: "Agent 'a': limits is not an option; an agent's limits (turns, exceptions, tokens, cost) are harness",
    });
  });

  it("post-processors given in code add to those POST_PROCESSORS names", () => {
    const reviewer = { name: "Reviewer", process: () => undefined };
    const agent = new Agent({ role: "a", metadata: { POST_PROCESSORS: "FinalCheck(minActions=2)" }, postProcessors: [reviewer] });
    assert.deepEqual(agent.postProcessors.map((processor) => processor.name), ["FinalCheck", "Reviewer"]);
    assert.equal((agent.postProcessors[0] as FinalCheck).minActions, 2);
  });

  it("a job's settings win over its agent's and are stored with the job", async () => {
    const dialog = await run(["Hello! How can I help?"], { harness: { maxTurns: 5 } }, { chatStyle: "MD_DIALOG", harness: { maxCost: 1 }, metadata: { TEAM: "sales" } });
    assert.equal(dialog.view.status, "DONE", "the job runs in MD_DIALOG although its agent is MARKDOWN");
    assert.match(dialog.requests[0]!.system, /You are talking with the user/, "the default prompt of the job's chat style");
    assert.deepEqual(dialog.metadata, { CHAT_STYLE: "MD_DIALOG", MAX_COST: 1, TEAM: "sales" });

    const limited = await run([ts("1"), ts("2"), ts("exit()")], { harness: { maxTurns: 5 } }, { harness: { maxTurns: 1 }, metadata: { MAX_TURNS: 3 } });
    assert.equal(limited.view.error, "harness limit: the job used all 1 of its model turns (maxTurns) without calling exit()");
    const byName = await run([ts("1"), ts("2"), ts("exit()")], { harness: { maxTurns: 5 } }, { metadata: { MAX_TURNS: 1 } });
    assert.equal(byName.view.error, "harness limit: the job used all 1 of its model turns (maxTurns) without calling exit()");

    const checked = await run(
      ["Sure.", "Final answer."], { chatStyle: "MD_DIALOG" }, { metadata: { POST_PROCESSORS: "FinalCheck(minActions=5)" } },
    );
    assert.equal(checked.requests.length, 2, "the job's POST_PROCESSORS vetoed the first final answer");
  });

  it("bad settings are refused when the agent is made or the job submitted, naming the option", async () => {
    const refuses = (options: Omit<AgentOptions, "role">, message: string) => assert.throws(() => new Agent({ role: "a", ...options }), { name: "TypeError", message });
    refuses({ chatStyle: "FANCY" as never }, 'Agent \'a\': chatStyle must be one of CONSOLE, MARKDOWN, MD_DIALOG, DIRECT, got "FANCY"');
    refuses({ toolsScope: 3 as never }, 'Agent \'a\': toolsScope must be a string such as "ALL" or "APPLICATION+brief", got a number');
    refuses({ toolsSchema: "loose" as never }, 'Agent \'a\': toolsSchema must be "strict" or "plain", got "loose"');
    refuses({ xmlBoxConsole: "a b" }, 'Agent \'a\': xmlBoxConsole must be an XML tag name such as "CONSOLE", got "a b"');
    refuses({ defaultAcl: ["+*"] as never }, 'Agent \'a\': defaultAcl must be "GRANT", "DENY" or ACL rules, got an array');
    refuses({ model: "gpt-5-mini" }, 'Agent \'a\': MODEL "gpt-5-mini" names no provider; write it as \'openai/gpt-5-mini\' (or set the PROVIDER setting)');
    refuses({ model: 42 as never }, 'Agent \'a\': model must be an AI SDK language model or a model string such as "openai/gpt-5-mini", got a number');
    refuses({ metadata: { TOOLS_SCHEMA: "loose" } }, 'Agent \'a\': metadata TOOLS_SCHEMA must be "strict" or "plain", got "loose"');
    refuses({ metadata: { MAX_TURNS: "many" } }, 'Agent \'a\': metadata MAX_TURNS must be a number ≥ 0, got "many"');
    refuses({ harness: { maxTurns: -1 } }, "Agent 'a': harness limit maxTurns must be a number ≥ 0, got -1");
    refuses({ harness: 5 as never }, "Agent 'a': harness limits must be an object such as { maxTurns: 20 }, got a number");
    refuses({ metadata: "CHAT_STYLE: CONSOLE" as never }, "Agent 'a': metadata must be a plain object, got a string");

    const agent = new Agent({ role: "a", tools: [find], model: scriptedModel([]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      await assert.rejects(statek.submitJob(agent, { chatStyle: "md" as never }), {
        name: "TypeError", message: 'submitJob: chatStyle must be one of CONSOLE, MARKDOWN, MD_DIALOG, DIRECT, got "md"',
      });
      await assert.rejects(statek.submitJob(agent, { toolsScope: "+nothing" }), {
        name: "TypeError", message: `submitJob: LLM_TOOLS_SCOPE "+nothing": unknown tool 'nothing' (not one of the agent's visible tools)`,
      });
      await assert.rejects(statek.submitJob(agent, { harness: { maxTokens: "1000" as never } }), {
        name: "TypeError", message: 'submitJob: harness limit maxTokens must be a number ≥ 0, got "1000"',
      });
      assert.deepEqual(await statek.listJobs(), [], "nothing was stored");
    } finally {
      await statek.close();
    }
  });

  it("Statek.open: workspaceLimits; limits is refused by name", async () => {
    await assert.rejects(Statek.open({ store: ":memory:", workspaceLimits: { memoryBytes: 0 } }), /workspace limit memoryBytes: expected a positive integer, got 0/);
    await assert.rejects(Statek.open({ store: ":memory:", ...({ limits: { cellTimeMs: 100 } } as object) }), {
      name: "TypeError",
      message: "Statek.open: limits is not an option; workspace limits (cellTimeMs, memoryBytes, …) are workspaceLimits, harness limits (maxTurns, …) are harness",
    });
    const looping = new Agent({ role: "loop", model: scriptedModel([ts("while (true) {}"), ts("exit()")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [looping], workspaceLimits: { cellTimeMs: 200 } });
    const view = await statek.runJob((await statek.submitJob(looping)).id);
    await statek.close();
    assert.match(view.console.join("\n"), /TimeoutError/);
  });
});
