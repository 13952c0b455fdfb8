import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clonePromptValue } from "./clone-prompt-value.ts";
import { ConversationRecorder } from "./conversation-recorder.ts";
import type { ModelMessage } from "./model-request.ts";

const deepFreeze = <T>(value: T): T => {
  if (typeof value === "object" && value !== null) for (const member of Object.values(value)) deepFreeze(member);
  return Object.freeze(value);
};
const user = (text: string): ModelMessage => ({ role: "user", content: [{ type: "text", text }] });
const textOf = (message: ModelMessage) => (message.content[0] as { text: string }).text;

describe("ConversationRecorder", () => {
  it("records each request as a fresh copy would, reusing only settled messages seen at the same place", () => {
    const recorder = new ConversationRecorder();
    const first = deepFreeze(user("kickoff"));
    const second = deepFreeze(user("second"));
    const open = user("open");
    const one = recorder.record([first, second, open]);
    assert.deepEqual(one.copies, [first, second, open].map(clonePromptValue));
    assert.equal(one.textLength, "kickoffsecondopen".length);
    (open.content[0] as { text: string }).text = "changed";
    const replaced = deepFreeze(user("replaced"));
    const two = recorder.record([first, replaced, open, second]);
    assert.deepEqual(two.copies.map(textOf), ["kickoff", "replaced", "changed", "second"]);
    assert.equal(two.textLength, "kickoffreplacedchangedsecond".length);
    assert.equal(two.copies[0], one.copies[0], "the same settled message at the same place: the same copy");
    assert.notEqual(two.copies[2], one.copies[2], "a message that can change is copied again");
    // A shorter request of the same conversation, then one of another conversation.
    assert.deepEqual(recorder.record([first]).copies.map(textOf), ["kickoff"]);
    const other = recorder.record([user("other"), second]);
    assert.deepEqual(other.copies.map(textOf), ["other", "second"]);
    assert.deepEqual(recorder.record([]), { copies: [], textLength: 0 });
  });

  it("takes over the settled messages a growing conversation began with, and counts their text", () => {
    const recorder = new ConversationRecorder();
    const history = Array.from({ length: 5 }, (_, index) => deepFreeze(user(`m${index}`)));
    const early = recorder.record(history.slice(0, 2));
    const later = recorder.record(history.slice(0, 4));
    const latest = recorder.record(history);
    assert.deepEqual(latest.copies.map(textOf), ["m0", "m1", "m2", "m3", "m4"]);
    assert.deepEqual([early.textLength, later.textLength, latest.textLength], [4, 8, 10]);
    assert.equal(latest.copies[1], early.copies[1]);
    assert.equal(latest.copies[3], later.copies[3]);
    const open = user("open");
    const unsettled = recorder.record([...history.slice(0, 3), open]);
    assert.deepEqual(unsettled.copies.map(textOf), ["m0", "m1", "m2", "open"]);
    assert.equal(unsettled.textLength, 10);
    assert.notEqual(recorder.record([...history.slice(0, 3), open, history[4]!]).copies[3], unsettled.copies[3], "an open message is copied every time");
  });
});
