/** Messages read correctly: "an Agent", "a User", "an 8th request", "holding an Invoice". */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { toolPayload } from "../docs/tool-payload.ts";
import { ScriptExhaustedError } from "../errors/script-exhausted-error.ts";
import { Agent, Statek } from "../index.ts";
import { tool } from "./tool.ts";
import { kindOf, withArticle } from "./with-article.ts";

class Invoice {}

describe("articles in messages", () => {
  it("withArticle goes by the sound of the word", () => {
    assert.deepEqual(["Agent", "User", "object", "Invoice", "Euro", "one-off", "number", "undefined"].map(withArticle), [
      "an Agent", "a User", "an object", "an Invoice", "a Euro", "a one-off", "a number", "an undefined",
    ]);
  });

  it("kindOf says what a caller passed", () => {
    assert.deepEqual([undefined, null, "x", 1, [], {}, Object.create(null), new Invoice(), () => 1].map(kindOf), [
      "undefined", "null", "a string", "a number", "an array", "a plain object", "a plain object", "an instance of Invoice", "a function",
    ]);
  });

  it("scriptedModel counts requests with the right article", () => {
    const message = (requestNumber: number) => new ScriptExhaustedError({ turnCount: 1, requestNumber }).message;
    assert.ok(message(2).startsWith("scriptedModel: the script has 1 turn and a 2nd request was made;"), message(2));
    assert.ok(message(8).startsWith("scriptedModel: the script has 1 turn and an 8th request was made;"), message(8));
    assert.ok(message(11).startsWith("scriptedModel: the script has 1 turn and an 11th request was made;"), message(11));
    assert.ok(message(18).startsWith("scriptedModel: the script has 1 turn and an 18th request was made;"), message(18));
    assert.ok(message(21).startsWith("scriptedModel: the script has 1 turn and a 21st request was made;"), message(21));
    assert.ok(message(80).startsWith("scriptedModel: the script has 1 turn and an 80th request was made;"), message(80));
    assert.ok(message(110).startsWith("scriptedModel: the script has 1 turn and a 110th request was made;"), message(110));
  });

  it("a class name that starts with a vowel takes 'an' in payloads and refusals", async () => {
    const send = tool({ name: "send", description: "Send it.", params: z.object({ invoice: z.instanceof(Invoice).describe("What to send.") }), run: () => "sent" });
    const schema = toolPayload(send).inputSchema as { properties: { invoice: { description: string } } };
    assert.equal(schema.properties.invoice.description, "What to send. (the name of a workspace variable holding an Invoice)");
    const agent = new Agent({ role: "billing" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      await assert.rejects(statek.submitJob(agent, { vars: { invoice: new Invoice() } }), {
        name: "TypeError",
        message: "submitJob: these variables cannot be stored: invoice: an Invoice host object that is neither a binding nor of an exposed class. " +
          "Pass host objects in Statek.open({ bindings }) or the agent's context so they persist by name, or expose their class with statek.expose(Class, { id, load }).",
      });
    } finally {
      await statek.close();
    }
  });
});
