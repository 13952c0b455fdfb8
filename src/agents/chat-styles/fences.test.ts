import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent, Statek, scriptedModel } from "../../index.ts";
import { splitDialog } from "../../jobs/step/dialog.ts";
import { chatStyleRules } from "./chat-styles.ts";
import { CHAT_STYLES } from "./chat-style.ts";
import { findFences, stripOuterFence, textOutsideCode } from "./fences.ts";

// The expressions the parsers replaced: correct, but quadratic on hostile text (20 s on 240 KB of backticks).
// On small texts they are the reference the linear parsers must agree with.
const OLD_FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const oldFindFences = (text: string) => [...text.matchAll(OLD_FENCE)].map((match) => ({
  language: match[1]!.toLowerCase(), body: match[2]!, start: match.index!, end: match.index! + match[0].length,
}));
function oldTextOutsideCode(text: string): string {
  let result = "";
  let position = 0;
  for (const fence of oldFindFences(text)) {
    if (!["ts", "typescript", "js", "javascript"].includes(fence.language)) continue;
    result += text.slice(position, fence.start);
    position = fence.end;
  }
  return (result + text.slice(position)).replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}
const oldStripOuterFence = (code: string) => /^\s*```[\w+-]*[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(code)?.[1] ?? code;
const OLD_MARKDOWN_LINK = /\[[^\]]*\]\([^)]*\)/;
const MEDIA = /(?<=^|\s)((?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{3,4})(?=[.,;:!?]*(?:\s|$))/g;
function oldSplitDialog(text: string) {
  const dialog = text.replace(/\(sandbox:\/{1,2}/g, "(").trim();
  if (dialog === "") return [];
  if (OLD_MARKDOWN_LINK.test(dialog)) return [{ body: dialog }];
  const messages: Array<{ body: string; media?: string }> = [];
  let position = 0;
  const body = (end: number | undefined) => dialog.slice(position, end).replace(/^[.,;:!?]+/, "").trim();
  for (const match of dialog.matchAll(MEDIA)) {
    messages.push({ body: body(match.index), media: match[1]! });
    position = match.index! + match[0].length;
  }
  const rest = body(undefined);
  if (rest) messages.push({ body: rest });
  return messages;
}

/** Deterministic texts built from the pieces fences, dialogs and links are made of. */
function* trickyTexts(count: number): Generator<string> {
  const pieces = ["```", "``", "`", "\n", "ts", "js", "TypeScript", "py", " ", "\t", "a", "x = 1", "[", "]", "(", ")", "](", "~~~", "\r\n", "gen/c.svg", "-+"];
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let index = 0; index < count; index++) {
    let text = "";
    const length = next() % 24;
    for (let piece = 0; piece < length; piece++) text += pieces[next() % pieces.length];
    yield text;
  }
}

describe("fence parsing", () => {
  it("finds the same fences as the old expression on thousands of tricky texts", () => {
    for (const text of trickyTexts(5000)) assert.deepEqual(findFences(text), oldFindFences(text), JSON.stringify(text));
  });

  it("reads the edge cases as before: mid-line fences, unclosed fences, a fence with no line break after it, tags", () => {
    assert.deepEqual(findFences("Say ```ts\nprint(1)\n``` and ```js\nprint(2)"), [
      { language: "ts", body: "print(1)\n", start: 4, end: 22 },
      { language: "js", body: "print(2)", start: 27, end: 41 },
    ]);
    assert.deepEqual(findFences("```TypeScript title=\"a.ts\"\nx\n```"), [{ language: "typescript", body: "x\n", start: 0, end: 32 }]);
    assert.deepEqual(findFences("inline ```x``` only"), [], "backticks with no line break after them open nothing");
    assert.deepEqual(findFences("````\n`\n"), [{ language: "", body: "`\n", start: 0, end: 7 }]);
  });

  it("keeps what the dialog styles send the user, and what ts_cli unfences, as before", () => {
    for (const text of trickyTexts(3000)) {
      assert.equal(textOutsideCode(text), oldTextOutsideCode(text), JSON.stringify(text));
      assert.equal(stripOuterFence(text), oldStripOuterFence(text), JSON.stringify(text));
      assert.deepEqual(splitDialog(text), oldSplitDialog(text), JSON.stringify(text));
    }
    assert.equal(stripOuterFence("  ```ts\nprint(1)\n```  \n"), "print(1)");
    assert.equal(stripOuterFence("print('```')"), "print('```')");
    assert.deepEqual(splitDialog("See [the chart](gen/chart.svg) here"), [{ body: "See [the chart](gen/chart.svg) here" }]);
    assert.deepEqual(splitDialog("[a] (b) gen/chart.svg"), [{ body: "[a] (b)", media: "gen/chart.svg" }]);
  });

  it("parses hostile replies of a megabyte in one pass: what took the old expression minutes finishes at once", () => {
    const size = 1_000_000; // 240 KB of backticks took the old fence expression 20 s; it grows with the square.
    const hostile = {
      "backticks": "`".repeat(size),
      "a fence with no line break": "```" + "a".repeat(size),
      "an unclosed fence of backticks": "```\n" + "`".repeat(size),
      "many small fences": "```ts\n```\n".repeat(size / 10),
      "a run of blanks": " \t".repeat(size / 2) + "x",
      "blank lines": " \n".repeat(size / 2),
      "opening brackets": "[".repeat(size),
      "brackets and parentheses": "[](".repeat(size / 3),
      "path-like text": "a/".repeat(size / 2),
      "think tags": "<think>".repeat(size / 7),
    };
    for (const [name, text] of Object.entries(hostile)) {
      const started = performance.now();
      findFences(text);
      textOutsideCode(text);
      stripOuterFence(text);
      splitDialog(text);
      for (const style of CHAT_STYLES) chatStyleRules(style).parseReply(text);
      const elapsed = performance.now() - started;
      // Linear parsing takes tens of milliseconds here; the bound only has to catch a quadratic one (minutes).
      assert.ok(elapsed < 5000, `${name}: ${Math.round(elapsed)} ms`);
    }
  });

  it("carries a hostile 250 KB dialog reply through a real job: delivered, recorded, and the job goes on", async () => {
    const hostile = "[".repeat(60_000) + "`".repeat(60_000) + " \t".repeat(30_000) + "```" + "a".repeat(60_000);
    const sent: string[] = [];
    const model = scriptedModel([hostile]);
    const agent = new Agent({ role: "hostile", model, metadata: { CHAT_STYLE: "MD_DIALOG" }, onMessage: (body) => void sent.push(body) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent, { message: "Hi" });
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.equal(sent.join("").length, hostile.trimEnd().length);
  });
});
