/**
 * A job's locale (the language rule and hint, inherited by child jobs, switched off by AUTO_LANG_RULE /
 * AUTO_LANG_HINT) and dialog agents' reminders and answer tool, through real jobs.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { Agent, Statek, answerTool, scriptedModel, tool } from "../src/index.ts";
import { runTestJob } from "../src/testing/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const userTexts = (request: { messages: Array<{ role: string; content: unknown }> }) =>
  request.messages.filter((message) => message.role === "user").flatMap((message) => (message.content as Array<{ type: string; text?: string }>).map((part) => part.text));

describe("a job's locale", () => {
  it("adds the language rule to the system prompt and a hint to the user's messages", async () => {
    const model = scriptedModel(["Dzień dobry!", "Proszę."]);
    const agent = new Agent({ role: "helper", systemPrompt: "You help.", chatStyle: "MD_DIALOG", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent, { message: "Hi", locale: "pl-PL" });
      await statek.runJob(id);
      await statek.pushMessage(id, "Thanks");
      await statek.runJob(id);
      const job = await statek.store.getJob(id);
      assert.equal(job!.metadata.LOCALE, "pl-PL");
    } finally {
      await statek.close();
    }
    assert.match(model.requests[0]!.system, /^You help\.\n\nKRYTYCZNA ZASADA JĘZYKOWA: odpowiadaj użytkownikowi wyłącznie po polsku\./);
    assert.deepEqual(userTexts(model.requests[1]!), ["Hi (PAMIĘTAJ: Odpowiedz wyłącznie po polsku)", "Thanks (PAMIĘTAJ: Odpowiedz wyłącznie po polsku)"]);
  });

  it("English has its own texts; a language without them gets the English ones naming it", async () => {
    const english = scriptedModel(["Hello!"]);
    await runTestJob(new Agent({ role: "en", systemPrompt: "You help.", chatStyle: "MD_DIALOG", model: english }), { message: "Show schedule", locale: "en-US" });
    assert.match(english.requests[0]!.system, /^You help\.\n\nCRITICAL LANGUAGE RULE: respond to the user exclusively in English\./);
    assert.deepEqual(userTexts(english.requests[0]!), ["Show schedule (REMEMBER: Respond exclusively in English)"]);
    const estonian = scriptedModel(["Tere!"]);
    await runTestJob(new Agent({ role: "et", systemPrompt: "You help.", chatStyle: "MD_DIALOG", model: estonian }), { message: "Hi", locale: "et" });
    assert.match(estonian.requests[0]!.system, /respond to the user exclusively in Estonian\./);
    assert.deepEqual(userTexts(estonian.requests[0]!), ["Hi (REMEMBER: Respond exclusively in Estonian)"]);
  });

  it("AUTO_LANG_RULE and AUTO_LANG_HINT set to False switch them off (typed: languageRule, languageHint)", async () => {
    const named = scriptedModel(["Hallo!"]);
    await runTestJob(new Agent({ role: "de", systemPrompt: "You help.", chatStyle: "MD_DIALOG", model: named, metadata: { AUTO_LANG_RULE: "False", AUTO_LANG_HINT: "False" } }), { message: "Hi", locale: "de-DE" });
    assert.equal(named.requests[0]!.system, "You help.");
    assert.deepEqual(userTexts(named.requests[0]!), ["Hi"]);
    const typed = scriptedModel(["Bonjour !"]);
    await runTestJob(new Agent({ role: "fr", systemPrompt: "You help.", chatStyle: "MD_DIALOG", model: typed, languageHint: false }), { message: "Salut", locale: "fr" });
    assert.match(typed.requests[0]!.system, /RÈGLE LINGUISTIQUE ESSENTIELLE/);
    assert.deepEqual(userTexts(typed.requests[0]!), ["Salut"]);
  });

  it("child jobs inherit the locale unless they are given one", async () => {
    const childModel = scriptedModel([ts("exit('ok')"), ts("exit('ok')")]);
    const researcher = new Agent({ role: "researcher", systemPrompt: "Research.", model: childModel });
    const research = tool({
      name: "research",
      description: "Start research.",
      params: z.object({ topic: z.string().describe("Topic."), locale: z.string().optional().describe("Locale.") }),
      run: ({ topic, locale }, ctx) => ctx.startJob(researcher, { message: topic, ...(locale ? { locale } : {}) }),
    });
    const parent = new Agent({ role: "lead", tools: [research], model: scriptedModel([ts("await research('bees')\nawait research('ants', 'it')\nexit(1)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, researcher] });
    try {
      const { id } = await statek.submitJob(parent, { locale: "es-ES" });
      // The parent waits for each child in turn; the children are stepped here.
      for (let round = 0; round < 2; round++) {
        await statek.runJob(id);
        for (const child of await statek.listJobs({ parentId: id })) if (child.status === "READY") await statek.runJob(child.id);
      }
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
    } finally {
      await statek.close();
    }
    assert.match(childModel.requests[0]!.system, /REGLA DE IDIOMA CRÍTICA/);
    assert.deepEqual(userTexts(childModel.requests[0]!), ["bees (RECUERDA: Responde exclusivamente en español)"]);
    assert.match(childModel.requests[1]!.system, /REGOLA LINGUISTICA FONDAMENTALE/);
  });

  it("a locale that is not one is refused at submit time", async () => {
    const agent = new Agent({ role: "x", model: scriptedModel([]) });
    await assert.rejects(runTestJob(agent, { locale: "polish" }), { name: "TypeError", message: `submitJob: locale must be a language code with an optional region, such as "pl-PL" or "de", got "polish"` });
    await assert.rejects(runTestJob(agent, { locale: "xx-PL" }), /unknown language code 'xx'/);
  });
});

describe("dialog agents: reminders and the answer tool", () => {
  it("a reply that would end the turn gets the reminder instead, once per turn; the model reads it as a message", async () => {
    const messages: string[] = [];
    const model = scriptedModel(["Your order is on its way.", "Done, and I noted the outcome."]);
    const agent = new Agent({
      role: "support", chatStyle: "MD_DIALOG", model, onMessage: (body) => void messages.push(body),
      reminders: [{ text: "Record the outcome with noteOutcome() before you finish." }],
    });
    const view = await runTestJob(agent, { message: "Where is my order?" });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.deepEqual(view.history.filter((record) => record.kind === "reminder").map((record) => record.data), [{ text: "Record the outcome with noteOutcome() before you finish." }]);
    assert.deepEqual(messages, ["Your order is on its way.", "Done, and I noted the outcome."], "the reply that met the reminder still reached the user");
    assert.deepEqual(userTexts(model.requests[1]!), ["Where is my order?", "Record the outcome with noteOutcome() before you finish."]);
    assert.equal(model.requests.length, 2, "a reminder fires once per turn: the second final reply ends it");
  });

  it("a reminder with minDialogLength waits until the dialog is that long", async () => {
    const model = scriptedModel(["Hello.", "Offering it now: would you take our survey?", "Bye."]);
    const agent = new Agent({ role: "later", chatStyle: "DIRECT", model, reminders: [{ text: "Offer the survey.", minDialogLength: 4 }] });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent, { message: "Hi" });
      const first = await statek.runJob(id);
      assert.equal(first.status, "DONE", "two messages: not due yet");
      await statek.pushMessage(id, "Thanks");
      const second = await statek.runJob(id);
      assert.equal(second.status, "DONE");
      assert.equal(second.history.filter((record) => record.kind === "reminder").length, 1, "four messages: due");
    } finally {
      await statek.close();
    }
  });

  it("answer(body, media?) sends the message and ends the job with it (code and formal calls)", async () => {
    const sent: Array<[string, string | undefined]> = [];
    const onMessage = (body: string, media: string | undefined) => void sent.push([body, media]);
    const fromCode = await runTestJob(new Agent({
      role: "answerer", chatStyle: "MD_DIALOG", tools: [answerTool], onMessage,
      model: scriptedModel(["Let me check.\n" + ts("await answer('Your total is 42.', 'gen/total.csv')\nprint('not reached?')")]),
    }), { message: "Total?" });
    assert.equal(fromCode.status, "DONE", fromCode.error ?? "");
    assert.equal(fromCode.exitStatus, "Your total is 42.");
    assert.deepEqual(sent, [["Let me check.", undefined], ["Your total is 42.", "gen/total.csv"]]);
    const formal = scriptedModel([{ toolCalls: [{ name: "answer", args: { body: "It is 7." } }, { name: "answer", args: { body: "never" } }] }]);
    const fromCall = await runTestJob(new Agent({ role: "direct", chatStyle: "DIRECT", tools: [answerTool], toolsScope: "APPLICATION+answer", onMessage, model: formal }), { message: "What?" });
    assert.equal(fromCall.status, "DONE", fromCall.error ?? "");
    assert.equal(fromCall.exitStatus, "It is 7.");
    assert.deepEqual(sent.at(-1), ["It is 7.", undefined]);
    assert.equal(fromCall.history.filter((record) => record.kind === "tool-call").length, 1, "the calls after the answer are not made");
    assert.match(formal.requests[0]!.system, /answer\(body: string, media\?: string\) — Send the user your final answer and end the job\./);
  });
});
