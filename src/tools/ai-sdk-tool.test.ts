import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonSchema, tool as aiTool } from "ai";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool, type AgentTools, type ScriptedTurn } from "../index.ts";
import { toolDeclaration } from "../docs/tool-docs.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function run(tools: AgentTools, turns: ScriptedTurn[]) {
  const model = scriptedModel([...turns, ts("exit()")]);
  const agent = new Agent({ role: "ai-sdk", model, tools, toolsScope: "ALL" });
  const statek = await Statek.open({ store: ":memory:", agents: [agent] });
  try {
    const { id } = await statek.submitJob(agent);
    return { view: await statek.runJob(id), model, agent };
  } finally {
    await statek.close();
  }
}

const weather = aiTool({
  description: "The weather in a city.",
  inputSchema: z.object({ city: z.string().describe("The city."), unit: z.enum(["C", "F"]).default("C") }),
  execute: async ({ city, unit }, { toolCallId, abortSignal }) => ({ city, unit, degrees: 21, toolCallId, aborted: abortSignal?.aborted }),
});

describe("AI SDK tools in an agent", () => {
  it("are taken from a record as they are: called from code, validated, declared and offered to the model", async () => {
    const { view, model, agent } = await run({ weather }, [ts("const w = await weather('Oslo')\nprint(w.city, w.unit, w.degrees)\n// @ts-expect-error: the schema refuses it again when it runs\nawait weather(5)")]);
    assert.deepEqual(view.console, ["Oslo C 21", `ValidationError: weather(city): expected a string, got 5`]);
    const [declared] = agent.tools;
    assert.match(toolDeclaration(declared!), /declare function weather\(city: string, unit\?: "C" \| "F"\)/);
    const offered = model.requests[0]!.tools.find((entry) => entry.name === "weather");
    assert.equal(offered?.description, "The weather in a city.");
    assert.deepEqual((offered?.inputSchema as { required?: unknown }).required, ["city"]);
    const w = view.variables.w as { toolCallId: string; aborted: boolean };
    assert.match(w.toolCallId, new RegExp(`^${view.id}:\\d+:\\d+$`), "the call id is the call's idempotency key");
    assert.equal(w.aborted, false);
  });

  it("take a formal tool call from the model", async () => {
    const { view } = await run({ weather }, [{ toolCalls: [{ name: "weather", args: { city: "Bergen", unit: "F" } }] }]);
    const call = view.history.find((record) => record.kind === "tool-call");
    assert.ok(call?.kind === "tool-call");
    assert.equal(call.data.error, undefined);
    assert.match(call.data.result ?? "", /Bergen/);
  });

  it("validate with a jsonSchema() schema and then its own validate, whose value execute gets", async () => {
    const repeat = aiTool({
      description: "Repeats a word.",
      inputSchema: jsonSchema<{ word: string; times: number }>(
        { type: "object", properties: { word: { type: "string", description: "The word." }, times: { type: "integer", minimum: 1 } }, required: ["word", "times"] },
        { validate: (value) => {
          const input = value as { word: string; times: number };
          return input.word === "forbidden" ? { success: false, error: new Error("that word is not allowed") } : { success: true, value: { ...input, word: input.word.toUpperCase() } };
        } },
      ),
      execute: ({ word, times }) => Array(times).fill(word).join(" "),
    });
    const { view } = await run({ repeat }, [ts("print(await repeat('ho', 3))\nawait repeat('ho', 0)"), ts("await repeat('forbidden', 1)")]);
    assert.equal(view.console[0], "HO HO HO");
    assert.match(view.console[1]!, /^ValidationError: repeat\(times\): /);
    assert.equal(view.console[2], "ValidationError: repeat: that word is not allowed");
  });

  it("use a Standard Schema's JSON Schema and its validation", async () => {
    const standard = {
      "~standard": {
        version: 1,
        vendor: "handmade",
        validate: (value: unknown) => {
          const n = (value as { n?: unknown }).n;
          return typeof n === "number" && n % 2 === 0 ? { value: { n: n / 2 } } : { issues: [{ message: "must be even", path: [{ key: "n" }] }] };
        },
        jsonSchema: { input: () => ({ type: "object", properties: { n: { type: "number", description: "An even number." } }, required: ["n"] }) },
      },
    };
    const half = aiTool({ description: "Halves an even number.", inputSchema: standard as never, execute: ({ n }: { n: number }) => n });
    const { view } = await run({ half }, [ts("print(await half(8))\nawait half(3)")]);
    assert.deepEqual(view.console, ["4", "ValidationError: half(n): must be even"]);
  });

  it("give a streaming execute's last value", async () => {
    const count = aiTool({
      description: "Counts to three.",
      inputSchema: z.object({}),
      execute: async function* () { yield 1; yield 2; yield 3; },
    });
    const { view } = await run({ count }, [ts("await count()")]);
    assert.deepEqual(view.console, ["3"]);
  });

  it("sit beside STATEK tools in the record, under their own names", async () => {
    const echo = tool({ name: "echo", description: "Echoes.", params: z.object({ text: z.string().describe("Text.") }), run: ({ text }) => text });
    const agent = new Agent({ role: "mixed", tools: { echo, weather } });
    assert.deepEqual(agent.tools.map((entry) => entry.name), ["echo", "weather"]);
    assert.throws(() => new Agent({ role: "x", tools: { shout: echo } }), /tools\.shout holds tool 'echo'; use the tool's own name as its key/);
  });

  it("are refused where they cannot work, naming the tool", () => {
    assert.throws(() => new Agent({ role: "x", tools: [weather] as never }), /tools\[0\] is an AI SDK tool, which has no name: pass the tools as a record/);
    assert.throws(() => new Agent({ role: "x", tools: { remote: aiTool({ description: "Client side.", inputSchema: z.object({}) }) } }),
      /tools\.remote: the AI SDK tool has no execute function/);
    assert.throws(() => new Agent({ role: "x", tools: { pay: aiTool({ description: "Pays.", inputSchema: z.object({}), needsApproval: true, execute: () => 1 }) } }),
      /tools\.pay: needsApproval is not carried over/);
    assert.throws(() => new Agent({ role: "x", tools: { odd: { description: "Odd.", inputSchema: 5, execute: () => 1 } } }),
      /tools\.odd: inputSchema must be a Zod schema, a Standard Schema or jsonSchema/);
    assert.throws(() => new Agent({ role: "x", tools: { list: aiTool({ description: "A list.", inputSchema: jsonSchema({ type: "array" }), execute: () => 1 }) } }),
      /tools\.list: the input schema must describe an object \(type "object"\), got type "array"/);
  });
});
