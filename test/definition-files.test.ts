/**
 * Definition folders and warmup directives through real jobs: `Statek.open({ promptDir, warmupDir })` applies
 * `<role>.md` and `<role>.ts` to the registered agents (errors name the file and line), `DESCRIPTION` becomes the
 * agent's description, and warmup `// statek:` directives: `key = literal` metadata and `as tool` calls the
 * model sees as its own.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const root = mkdtempSync(join(tmpdir(), "statek-definitions-"));
after(() => rmSync(root, { recursive: true, force: true }));
const ts = (code: string) => "```ts\n" + code + "\n```";

function folder(name: string, files: Record<string, string>): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(path, file), text);
  return path;
}

const lookup = tool({
  name: "lookupOrder",
  description: "Look up an order.",
  params: z.object({ id: z.number().describe("Order id."), verbose: z.boolean().optional().describe("More detail.") }),
  run: ({ id, verbose }) => ({ id, status: verbose ? "shipped on Monday" : "shipped" }),
});

describe("Statek.open({ promptDir, warmupDir })", () => {
  it("applies <role>.md and <role>.ts to the registered agent; DESCRIPTION becomes its description", async () => {
    const promptDir = folder("prompts", {
      "orders.md": "# MODEL: scripted/any\n# DESCRIPTION: Answers questions about orders.\n# MAX_TURNS: 3\n# TEMPERATURE: 0.2\n\n# System Prompt\nYou answer about orders. Tools:\n{brief_tools}",
      "nobody.md": "# System Prompt\nNo agent has this role (yet).",
    });
    const warmupDir = folder("warmups", { "orders.ts": "const greeting = 'hello'\n// ----------\nconst shout = greeting.toUpperCase()" });
    const model = scriptedModel([ts("exit(shout)")]);
    const agent = new Agent({ role: "orders", systemPrompt: "A prompt from code.", tools: [lookup], model, warmup: "const first = 1" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent], promptDir, warmupDir });
    try {
      const runs = statek.agent("orders")!;
      assert.notEqual(runs, agent);
      assert.equal(runs.description, "Answers questions about orders.");
      assert.equal(runs.harness.maxTurns, 3);
      assert.equal(runs.metadata.TEMPERATURE, "0.2");
      assert.deepEqual(runs.warmup.map((block) => block.code), ["const first = 1", "const greeting = 'hello'", "const shout = greeting.toUpperCase()"]);
      statek.register(agent);
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "HELLO");
      assert.equal(model.requests[0]!.system, "You answer about orders. Tools:\nlookupOrder(id, verbose?) — Look up an order.");
      assert.equal(model.requests[0]!.settings?.temperature, 0.2);
    } finally {
      await statek.close();
    }
  });

  it("a bad prompt or warmup file is an error naming the file and line, before anything is opened", async () => {
    const badPrompt = folder("bad-prompts", { "x.md": "# MODEL: openai/gpt-5\n# TEMPERATURE: 3\n# System Prompt\nx" });
    await assert.rejects(Statek.open({ store: ":memory:", promptDir: badPrompt }), {
      name: "InvalidPromptFileError", message: `${join(badPrompt, "x.md")}:2: TEMPERATURE must be a number from 0 to 1, got "3"`,
    });
    const badMapping = folder("bad-mapping", { "x.md": "# MODEL: L:openai/gpt-5-nano\n# System Prompt\nx" });
    await assert.rejects(Statek.open({ store: ":memory:", promptDir: badMapping }), /x\.md:1: MODEL "L:openai\/gpt-5-nano": no model for level M, H/);
    const badDirective = folder("bad-directive", { "x.ts": "const a = 1\n// statek: retries = soon\n" });
    await assert.rejects(Statek.open({ store: ":memory:", warmupDir: badDirective }), {
      name: "InvalidPromptFileError", message: `${join(badDirective, "x.ts")}:2: invalid warmup metadata value for 'retries': "soon" (expected a string, number, true, false or null)`,
    });
    const badCode = folder("bad-code", { "x.ts": "const a = 1\n// ----------\n\nconst b = 2\nconst c = (\n" });
    await assert.rejects(Statek.open({ store: ":memory:", warmupDir: badCode }), (error: Error) => {
      assert.equal(error.name, "InvalidPromptFileError");
      assert.match(error.message, new RegExp(`^${join(badCode, "x.ts").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:5: SyntaxError: `), "the line the compiler names, counted in the file");
      return true;
    });
    await assert.rejects(Statek.open({ store: ":memory:", promptDir: join(root, "missing") }), /missing: cannot read the folder/);
  });
});

describe("warmup directives, through real jobs", () => {
  it("`as tool` lines are formal calls the model sees with their results; `key = literal` is block metadata", async () => {
    const model = scriptedModel([ts("exit(order.status)")], { provider: "openai" });
    const agent = new Agent({
      role: "with-calls", tools: [lookup], model,
      warmup: "// statek: source = 'crm'\n// statek: retries = 2\nlookupOrder(17) // statek: as tool\nawait lookupOrder({ id: 18, verbose: true }) // statek: as tool\nconst order = await lookupOrder(17)",
    });
    assert.deepEqual(agent.warmup, [{
      code: "const order = await lookupOrder(17)", hidden: false, metadata: { source: "crm", retries: 2 },
      toolCalls: [{ name: "lookupOrder", args: [17] }, { name: "lookupOrder", args: [{ id: 18, verbose: true }] }],
    }]);
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent, { message: "Where is order 17?" });
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "shipped");
      const warmup = view.history.find((record) => record.kind === "warmup")!.data;
      assert.deepEqual(warmup, {
        block: 0, code: "const order = await lookupOrder(17)", hidden: false,
        toolCalls: [{ id: "STATEK-001", name: "lookupOrder", args: { id: 17 } }, { id: "STATEK-002", name: "lookupOrder", args: { id: 18, verbose: true } }],
      });
    } finally {
      await statek.close();
    }
    const messages = model.requests[0]!.messages;
    assert.deepEqual(messages.slice(1, 3), [
      {
        role: "assistant",
        content: [
          { type: "text", text: "```ts\nconst order = await lookupOrder(17)\n```" },
          { type: "tool-call", toolCallId: "STATEK-001", toolName: "lookupOrder", input: { id: 17 } },
          { type: "tool-call", toolCallId: "STATEK-002", toolName: "lookupOrder", input: { id: 18, verbose: true } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "STATEK-001", toolName: "lookupOrder", output: { type: "text", value: "{id:17,status:\"shipped\"}" } },
          { type: "tool-result", toolCallId: "STATEK-002", toolName: "lookupOrder", output: { type: "text", value: "{id:18,status:\"shipped on Monday\"}" } },
        ],
      },
    ]);
  });

  it("a bare name binds to the workspace variable of that name", async () => {
    const show = tool({
      name: "showCustomer",
      description: "Show a customer.",
      params: z.object({ customer: z.object({ name: z.string() }).describe("The customer.") }),
      run: ({ customer }) => `customer ${customer.name}`,
    });
    const model = scriptedModel([ts("exit(1)")]);
    const agent = new Agent({ role: "bare", tools: [show], model, warmup: "showCustomer(customer) // statek: as tool" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent, { vars: { customer: { name: "Ada" } } });
      const view = await statek.runJob(id);
      const call = view.history.find((record) => record.kind === "tool-call")!.data as { result?: string; error?: string };
      assert.equal(call.result, "customer Ada", call.error);
    } finally {
      await statek.close();
    }
  });
});
