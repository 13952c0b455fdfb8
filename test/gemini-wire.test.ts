import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { geminiRejection, geminiStream, type GeminiReply } from "./support/gemini-stream.ts";
import type { Responder } from "./support/loopback-server.ts";
import { runWireJob } from "./support/wire-job.ts";

/** A Gemini server that validates each request's contents before it answers. */
const checked = (reply: GeminiReply): Responder => (request) => geminiRejection(request.body) ?? geminiStream(reply);

describe("Google Gemini, through @ai-sdk/google, by a real job", () => {
  it("never sends an empty assistant turn: an empty MD_DIALOG reply is held, the model is told, and the job goes on to an answer", async () => {
    const sent: string[] = [];
    const { view, requests } = await runWireJob({
      responses: [checked({ texts: [] }), checked({ texts: ["Hello! ", "How can I help?"] })],
      agent: { metadata: { MODEL: "google/gemini-2.5-flash", CHAT_STYLE: "MD_DIALOG" }, onMessage: (body) => void sent.push(body) },
      message: "Hi",
    });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(requests.length, 2, "the second request was accepted");
    assert.equal(requests[0]!.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    assert.deepEqual(sent, ["Hello! How can I help?"], "the empty reply reached nobody");
    assert.deepEqual(requests[1]!.body.contents, [
      { role: "user", parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ text: "(empty reply)" }] },
      { role: "user", parts: [{ text: "<CONSOLE>\nYour reply was empty: the user got no answer and nothing ran. Answer the user, or run code first.\n</CONSOLE>" }] },
    ]);
    const statuses = view.history.filter((record) => record.kind === "status").map((record) => record.data.status);
    assert.deepEqual(statuses, ["STARTED", "DONE"], "the empty reply did not end the job");
  });

  it("counts an empty dialog reply against the harness: replies that keep coming back empty stop the job", async () => {
    const { view } = await runWireJob({
      responses: [checked({ texts: [] }), checked({ texts: [] }), checked({ texts: [] })],
      agent: { metadata: { MODEL: "google/gemini-2.5-flash", CHAT_STYLE: "MD_DIALOG" }, harness: { maxConsecutiveExceptions: 1 } },
      message: "Hi",
    });
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: 2 turns in a row raised exceptions, more than the limit of 1 (maxConsecutiveExceptions)");
  });

  it("sends thought signatures back on the parts that carried them (text and function call)", async () => {
    const { view, requests } = await runWireJob({
      responses: [
        checked({ parts: [{ text: "Checking.", thoughtSignature: "sig-text" }, { functionCall: { name: "ts_cli", args: { code: "print(6 * 7)" } }, thoughtSignature: "sig-call" }] }),
        checked({ texts: ["It is 42."] }),
      ],
      agent: { metadata: { MODEL: "google/gemini-2.5-flash", CHAT_STYLE: "DIRECT" } },
      message: "6 * 7?",
    });
    assert.equal(view.status, "DONE", view.error ?? "");
    const turn = requests[1]!.body.contents[1];
    assert.equal(turn.role, "model");
    assert.deepEqual(turn.parts.map((part: any) => [part.text ?? part.functionCall.name, part.functionCall?.args, part.thoughtSignature]), [
      ["Checking.", undefined, "sig-text"],
      ["ts_cli", { code: "print(6 * 7)" }, "sig-call"],
    ]);
  });
});
