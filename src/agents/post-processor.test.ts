import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent, FinalCheck, FINAL_CHECK_MESSAGE, Statek, scriptedModel, type PostProcessor, type ScriptedTurn } from "../index.ts";
import { parsePostProcessors } from "./parse-post-processors.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function run(turns: ScriptedTurn[], options: { postProcessors?: PostProcessor[]; metadata?: Record<string, string>; message?: string }) {
  const model = scriptedModel(turns);
  const sent: string[] = [];
  const agent = new Agent({ role: "checked", model, onMessage: (body) => void sent.push(body), ...options });
  const statek = await Statek.open({ store: ":memory:", agents: [agent] });
  const { id } = await statek.submitJob(agent, options.message ? { message: options.message } : {});
  const view = await statek.runJob(id);
  await statek.close();
  return { view, model, sent };
}

describe("post-processors", () => {
  it("FinalCheck vetoes a final answer given after too few actions, once, showing the model its draft", async () => {
    const { view, model, sent } = await run(["It is 4.", "It is 4, I checked."], {
      metadata: { CHAT_STYLE: "MD_DIALOG", POST_PROCESSORS: "FinalCheck(minActions=2)" },
      message: "What is 2 + 2?",
    });
    assert.equal(view.status, "DONE");
    assert.deepEqual(sent, ["It is 4, I checked."], "the vetoed draft never reached the user");
    assert.equal(view.turns, 2);
    const veto = view.history.find((record) => record.kind === "post-processed");
    assert.equal(veto?.kind === "post-processed" && veto.data.veto, `${FINAL_CHECK_MESSAGE}\n\nDraft answer:\nIt is 4.`);
    assert.deepEqual(model.requests[1]!.messages, [
      { role: "user", content: [{ type: "text", text: "What is 2 + 2?" }] },
      {
        role: "user",
        content: [{
          type: "text",
          text: "Final check: reflect on the user's latest request and your draft answer. Make sure it is correct, complete, and " +
            "directly answers the user. Revise if needed; otherwise return it unchanged.\n\nDraft answer:\nIt is 4.",
        }],
      },
    ]);
  });

  it("FinalCheck lets a final answer through after enough actions, and looks at exit() in the code styles", async () => {
    const enough = await run([ts("const a = 2 + 2"), ts("exit(a)")], { postProcessors: [new FinalCheck({ minActions: 1 })] });
    assert.equal(enough.view.exitStatus, 4);
    assert.equal(enough.model.requests.length, 2);
    const early = await run([ts("exit(4)"), ts("exit(4)")], { postProcessors: [new FinalCheck({ minActions: 1 })] });
    assert.equal(early.view.exitStatus, 4);
    assert.equal(early.model.requests.length, 2, "the first exit was vetoed and the model answered again");
    assert.match(JSON.stringify(early.model.requests[1]!.messages.at(-1)), /Draft answer:\\n```ts\\nexit\(4\)\\n```/);
  });

  it("rewrites a reply before it is committed, and a note keeps a dialog reply from ending the turn", async () => {
    const redact: PostProcessor = {
      name: "redact",
      process: (draft) => (draft.text.includes("secret") ? { reply: { ...draft, text: draft.text.replace("secret", "[redacted]") } } : undefined),
    };
    const remind: PostProcessor = {
      name: "remind",
      process: (_draft, context) => (context.final && context.activations === 0 ? { note: "Remember to offer a follow-up." } : undefined),
    };
    const { view, model, sent } = await run(["The code is secret.", "Anything else?"], {
      postProcessors: [redact, remind],
      metadata: { CHAT_STYLE: "MD_DIALOG" },
      message: "Tell me.",
    });
    assert.equal(view.status, "DONE");
    assert.deepEqual(sent, ["The code is [redacted].", "Anything else?"]);
    const first = view.history.find((record) => record.kind === "model-response");
    assert.equal(first?.kind === "model-response" && first.data.text, "The code is [redacted].");
    const notes = view.history.filter((record) => record.kind === "post-processed").map((record) => record.data);
    assert.deepEqual(notes.map((note) => [note.processor, note.note ?? null, note.draft?.text ?? null]), [
      ["redact", null, "The code is secret."],
      ["remind", "Remember to offer a follow-up.", null],
    ]);
    assert.deepEqual(model.requests[1]!.messages.slice(1), [
      { role: "assistant", content: [{ type: "text", text: "The code is [redacted]." }] },
      { role: "user", content: [{ type: "text", text: "Remember to offer a follow-up." }] },
    ]);
  });

  it("fails the job with the reason when a post-processor returns an outcome that both vetoes and replaces", async () => {
    const confused: PostProcessor = { name: "confused", process: (draft) => ({ veto: "no", reply: draft }) };
    const { view } = await run([ts("1")], { postProcessors: [confused] });
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "post-processing the reply of turn 1 failed: TypeError: post-processor 'confused' returned both a veto and a reply; a vetoed reply is not replaced");
  });

  it("parses POST_PROCESSORS and names what is wrong", () => {
    const [first, second] = parsePostProcessors("FinalCheck(minActions=2), FinalCheck(max_llm_actions=5, name='SecondLook')") as FinalCheck[];
    assert.deepEqual([first!.minActions, first!.name, second!.minActions, second!.name], [2, "FinalCheck", 5, "SecondLook"]);
    assert.deepEqual(parsePostProcessors("FinalCheck()").map((processor) => processor.name), ["FinalCheck"]);
    assert.throws(() => parsePostProcessors("Reviewer()"), /^TypeError: unknown post-processor 'Reviewer' in POST_PROCESSORS \(known: FinalCheck\)$/);
    assert.throws(() => parsePostProcessors("FinalCheck(2)"), /invalid POST_PROCESSORS "FinalCheck\(2\)": FinalCheck: expected option=literal/);
    assert.throws(() => parsePostProcessors("FinalCheck(minActions=os.system())"), /invalid POST_PROCESSORS/);
    assert.throws(() => parsePostProcessors("FinalCheck(limit=2)"), /FinalCheck has no option 'limit'/);
    assert.throws(() => new Agent({ role: "x", metadata: { POST_PROCESSORS: "FinalCheck(minActions=-1)" } }), /FinalCheck: minActions must be a whole number ≥ 0, got -1/);
  });
});
