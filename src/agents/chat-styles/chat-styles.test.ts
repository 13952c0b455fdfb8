import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool, type AgentOptions, type ScriptedTurn } from "../../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const text = (value: string) => [{ type: "text", text: value }];
const userText = (value: string) => ({ role: "user", content: text(value) });

async function conversation(turns: ScriptedTurn[], options: Partial<AgentOptions> & { message?: string; xmlBoxConsole?: string } = {}) {
  const model = scriptedModel(turns);
  const sent: Array<[string, string | undefined]> = [];
  const { message, xmlBoxConsole, ...agentOptions } = options;
  const agent = new Agent({ role: "styled", model, onMessage: (body, media) => void sent.push([body, media]), ...agentOptions });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], ...(xmlBoxConsole ? { xmlBoxConsole } : {}) });
  const { id } = await statek.submitJob(agent, message === undefined ? {} : { message });
  const view = await statek.runJob(id);
  return { statek, id, view, model, sent };
}

describe("the CONSOLE chat style", () => {
  it("runs the whole reply as code, shows it back as written and prefixes every console line with '> '", async () => {
    const { statek, view, model } = await conversation(["const a = 1\nprint(a)\nprint('x\\ny')", "exit(a)"], { metadata: { CHAT_STYLE: "CONSOLE" } });
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.deepEqual(model.requests[1]!.messages, [
      userText("The workspace is ready. Begin."),
      { role: "assistant", content: text("const a = 1\nprint(a)\nprint('x\\ny')") },
      userText("> 1\n> x\n> y"),
    ]);
  });

  it("runs fenced code of any language when the reply uses fences, keeping the prose as comments", async () => {
    const { statek, view, model } = await conversation(["I'll compute.\n```\nprint(6 * 7)\n```", "exit()"], { metadata: { CHAT_STYLE: "CONSOLE" } });
    await statek.close();
    assert.deepEqual(view.console, ["42"]);
    assert.deepEqual(model.requests[1]!.messages.slice(1), [
      { role: "assistant", content: text("// I'll compute.\nprint(6 * 7)") },
      userText("> 42"),
    ]);
  });
});

describe("the MARKDOWN chat style", () => {
  it("fences the cell and shows the console as is, or in an XML box when one is configured", async () => {
    const { statek, model } = await conversation([ts("print('one')\nprint('two')"), ts("exit()")], { metadata: { XML_BOX_CONSOLE: "OUT" } });
    await statek.close();
    assert.deepEqual(model.requests[1]!.messages.slice(1), [
      { role: "assistant", content: text("```ts\nprint('one')\nprint('two')\n```") },
      userText("<OUT>\none\ntwo\n</OUT>"),
    ]);
  });

  it("mixes code and formal tool calls when LLM_TOOLS_SCOPE is set: tool results first, then the console", async () => {
    const add = tool({
      name: "add",
      description: "Add two numbers.",
      params: z.object({ a: z.number().describe("First."), b: z.number().describe("Second.") }),
      run: ({ a, b }) => a + b,
    });
    const { statek, view, model } = await conversation([
      { text: ts("const viaCode = add(2, 3)\nprint('code ran', viaCode)"), toolCalls: [{ name: "add", args: { a: 1, b: 2 }, id: "call-1" }] },
      ts("exit(viaCode)"),
    ], { tools: [add], metadata: { LLM_TOOLS_SCOPE: "APPLICATION" } });
    await statek.close();
    assert.equal(view.exitStatus, 5);
    assert.deepEqual(model.requests[0]!.tools.map((offered) => offered.name), ["add"]);
    const schema = model.requests[0]!.tools[0]!.inputSchema;
    assert.deepEqual(schema.properties, { a: { type: "number", description: "First." }, b: { type: "number", description: "Second." } });
    assert.deepEqual(schema.required, ["a", "b"]);
    assert.deepEqual(model.requests[1]!.messages.slice(1), [
      {
        role: "assistant",
        content: [
          { type: "text", text: "```ts\nconst viaCode = add(2, 3)\nprint('code ran', viaCode)\n```" },
          { type: "tool-call", toolCallId: "call-1", toolName: "add", input: { a: 1, b: 2 } },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call-1", toolName: "add", output: { type: "text", value: "3" } }] },
      userText("code ran 5"),
    ]);
  });

  it("offers no tools without LLM_TOOLS_SCOPE", async () => {
    const noop = tool({ name: "noop", description: "Nothing.", run: () => null });
    const { statek, model } = await conversation([ts("exit()")], { tools: [noop] });
    await statek.close();
    assert.deepEqual(model.requests[0]!.tools, []);
  });
});

describe("the MD_DIALOG chat style", () => {
  it("runs fenced code, sends the prose to the user, boxes the console and ends the turn on a reply without code", async () => {
    const { statek, view, model, sent } = await conversation([
      "Let me check your day.\n```ts\nconst meetings = 2\nprint(meetings)\n```",
      "You have 2 meetings today.",
    ], { metadata: { CHAT_STYLE: "MD_DIALOG" }, message: "What is on today?" });
    assert.equal(view.status, "DONE");
    assert.equal(view.exitStatus, undefined, "a dialog turn ends without exit()");
    assert.deepEqual(sent, [["Let me check your day.", undefined], ["You have 2 meetings today.", undefined]]);
    assert.deepEqual(model.requests[1]!.messages, [
      userText("What is on today?"),
      { role: "assistant", content: text("Let me check your day.\n```ts\nconst meetings = 2\nprint(meetings)\n```") },
      userText("<CONSOLE>\n2\n</CONSOLE>"),
    ]);
    assert.deepEqual(
      view.history.filter((record) => record.kind === "dialog").map((record) => record.data),
      [{ body: "Let me check your day." }, { body: "You have 2 meetings today." }],
      "user-facing replies are kept in history",
    );
    await statek.close();
  });

  it("stacks a configured XML box outside the <CONSOLE> box", async () => {
    const { statek, model } = await conversation([ts("print(1)"), "Done."], { metadata: { CHAT_STYLE: "MD_DIALOG" }, xmlBoxConsole: "OUT" });
    await statek.close();
    assert.deepEqual(model.requests[1]!.messages.at(-1), userText("<OUT>\n<CONSOLE>\n1\n</CONSOLE>\n</OUT>"));
  });

  it("starts a DONE dialog job again on a pushed message, which is the user's next turn", async () => {
    const model = scriptedModel(["Hello! How can I help?", ts("const booked = true"), "Booked."]);
    const agent = new Agent({ role: "dialog", model, metadata: { CHAT_STYLE: "MD_DIALOG" } });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent, { message: "Hi" });
    assert.equal((await statek.runJob(id)).status, "DONE");
    const pushed = await statek.pushMessage(id, "Book a meeting at 10.");
    assert.equal(pushed.status, "STARTED");
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.equal(view.variables.booked, true);
    assert.deepEqual(model.requests[1]!.messages, [
      userText("Hi"),
      { role: "assistant", content: text("Hello! How can I help?") },
      userText("Book a meeting at 10."),
    ]);
    assert.deepEqual(model.requests[2]!.messages.slice(3), [
      { role: "assistant", content: text("```ts\nconst booked = true\n```") },
      userText("<CONSOLE>\n(no output)\n</CONSOLE>"),
    ]);
  });

  it("splits off media and shows a failing onMessage to the model on the console; the turn goes on", async () => {
    let calls = 0;
    const sent: Array<[string, string | undefined]> = [];
    const { statek, view, model } = await conversation(["Here is your chart: gen/chart.svg", "Sorry, here it is again: gen/chart.svg"], {
      metadata: { CHAT_STYLE: "MD_DIALOG" },
      message: "Chart please",
      onMessage: (body, media) => {
        if (calls++ === 0) throw new Error("network is down");
        sent.push([body, media]);
      },
    });
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.deepEqual(sent, [["Sorry, here it is again:", "gen/chart.svg"]]);
    assert.deepEqual(view.console, ["Error: network is down (the message did not reach the user)"]);
    assert.deepEqual(model.requests[1]!.messages.at(-1), userText("<CONSOLE>\nError: network is down (the message did not reach the user)\n</CONSOLE>"));
  });
});

describe("the DIRECT chat style", () => {
  it("works only through ts_cli: code output is the tool result, not job console; plain text is dialog", async () => {
    const { statek, view, model, sent } = await conversation([
      { text: "Checking.", toolCalls: [{ name: "ts_cli", args: { code: "const n = 3\nprint('n is', n)" }, id: "cli-1" }] },
      { toolCalls: [{ name: "ts_cli", args: { code: "```ts\n// @ts-expect-error: a call that fails when it runs\nnope()\n```" }, id: "cli-2" }] },
      "You have 3 meetings. ```ts\nignored()\n```",
    ], { metadata: { CHAT_STYLE: "DIRECT" }, message: "How many meetings?" });
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.deepEqual(view.console, [], "ts_cli output never enters the job console");
    assert.equal(view.variables.n, 3);
    assert.deepEqual(sent, [["Checking.", undefined], ["You have 3 meetings.", undefined]]);
    assert.deepEqual(model.requests[0]!.tools.map((offered) => offered.name), ["ts_cli"]);
    assert.deepEqual(model.requests[0]!.tools[0]!.inputSchema.required, ["code"]);
    assert.deepEqual(model.requests[2]!.messages, [
      userText("How many meetings?"),
      { role: "assistant", content: [{ type: "text", text: "Checking." }, { type: "tool-call", toolCallId: "cli-1", toolName: "ts_cli", input: { code: "const n = 3\nprint('n is', n)" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "cli-1", toolName: "ts_cli", output: { type: "text", value: "n is 3" } }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "cli-2", toolName: "ts_cli", input: { code: "```ts\n// @ts-expect-error: a call that fails when it runs\nnope()\n```" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "cli-2", toolName: "ts_cli", output: { type: "error-text", value: "ReferenceError: nope is not defined" } }] },
    ]);
  });

  it("shows warmup as a ts_cli call with id STATEK-WARMUP-000 and boxes ts_cli results in the XML box", async () => {
    const { statek, model } = await conversation([
      { toolCalls: [{ name: "ts_cli", args: { code: "print(seed * 2)" }, id: "cli-1" }] },
      "It is 14.",
    ], { metadata: { CHAT_STYLE: "DIRECT", XML_BOX_CONSOLE: "OUT" }, warmup: "const seed = 7\nprint('seeded')", message: "Double the seed." });
    await statek.close();
    assert.deepEqual(model.requests[1]!.messages, [
      userText("Double the seed."),
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "STATEK-WARMUP-000", toolName: "ts_cli", input: { code: "const seed = 7\nprint('seeded')" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "STATEK-WARMUP-000", toolName: "ts_cli", output: { type: "text", value: "<OUT>\nseeded\n</OUT>" } }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "cli-1", toolName: "ts_cli", input: { code: "print(seed * 2)" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "cli-1", toolName: "ts_cli", output: { type: "text", value: "<OUT>\n14\n</OUT>" } }] },
    ]);
  });

  it("finishes the job when ts_cli code calls exit", async () => {
    const { statek, view } = await conversation([{ toolCalls: [{ name: "ts_cli", args: { code: "exit('bye')" } }] }], { metadata: { CHAT_STYLE: "DIRECT" } });
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.equal(view.exitStatus, "bye");
  });
});

describe("pushMessage in the code styles", () => {
  it("shows a message pushed while a reply is pending after the console output it ran with", async () => {
    const model = scriptedModel([ts("print('working')"), ts("exit()")]);
    const agent = new Agent({ role: "pushed", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent);
    await statek.step(id);
    await statek.pushMessage(id, "Also check Friday.");
    const view = await statek.runJob(id);
    assert.equal(view.status, "DONE");
    assert.deepEqual(model.requests[1]!.messages.slice(1), [
      { role: "assistant", content: text("```ts\nprint('working')\n```") },
      userText("working"),
      userText("Also check Friday."),
    ]);
    await assert.rejects(statek.pushMessage(id, "more"), { name: "JobFinishedError", message: /is DONE; only dialog jobs \(CHAT_STYLE MD_DIALOG or DIRECT\)/ });
    await statek.close();
  });
});

describe("replies that are recorded but not run", () => {
  it("runs nothing of a reply cut off by the token limit, in any code style, and tells the model", async () => {
    for (const style of ["CONSOLE", "MARKDOWN"]) {
      const { statek, view, model } = await conversation([
        { text: "```ts\nconst rows = 1\nexit('cut')", finishReason: "length" },
        ts("exit('again')"),
      ], { metadata: { CHAT_STYLE: style } });
      await statek.close();
      assert.equal(view.exitStatus, "again", style);
      assert.equal(view.variables.rows, undefined, style);
      const notice = "Your reply was cut off at the output token limit (finish reason: length): none of its code ran. " +
        "Reply again with less: shorter code, or the work split over several steps.";
      assert.deepEqual(model.requests[1]!.messages.at(-1), userText(style === "CONSOLE" ? `> ${notice}` : notice), style);
    }
  });

  it("in MD_DIALOG, neither delivers nor runs a cut-off reply; a refusal with text is the user's answer and ends the turn", async () => {
    const cut = await conversation([{ text: "Sure, here is the long answer: first", finishReason: "length" }, "Short answer."], { metadata: { CHAT_STYLE: "MD_DIALOG" }, message: "Tell me" });
    await cut.statek.close();
    assert.deepEqual(cut.sent, [["Short answer.", undefined]]);
    assert.equal(cut.view.status, "DONE");

    const refused = await conversation([{ text: "I can't help with that.", finishReason: "content-filter" }], { metadata: { CHAT_STYLE: "MD_DIALOG" }, message: "Do something bad" });
    await refused.statek.close();
    assert.equal(refused.view.status, "DONE");
    assert.deepEqual(refused.sent, [["I can't help with that.", undefined]]);
  });

  it("does not end a DIRECT turn on an empty reply, nor show the model an empty assistant message", async () => {
    const { statek, view, model, sent } = await conversation([{ reasoning: "Hmm." }, "Here you are."], { metadata: { CHAT_STYLE: "DIRECT" }, message: "Hi" });
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.deepEqual(sent, [["Here you are.", undefined]]);
    assert.deepEqual(model.requests[1]!.messages.slice(1), [
      { role: "assistant", content: [{ type: "reasoning", text: "Hmm." }, { type: "text", text: "(empty reply)" }] },
      userText("Your reply was empty: the user got no answer and nothing ran. Answer the user, or run code first."),
    ]);
  });
});
