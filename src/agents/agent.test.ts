/** An agent's tool registry: its tools, tools in its context, then the system tools. */
import { WORKSPACE_GLOBALS_NOTE } from "../workspace/workspace-notes.ts";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { tool } from "../tools/tool.ts";
import { Agent } from "./agent.ts";
import { Statek } from "../jobs/statek.ts";
import { scriptedModel } from "../models/scripted-model.ts";
import { z } from "zod";
import { CHAT_STYLES } from "./chat-styles/chat-style.ts";
import { chatStyleRules } from "./chat-styles/chat-styles.ts";

const make = (name: string) => tool({ name, description: `The ${name} tool.`, run: () => name });
const names = (tools: ReadonlyArray<{ name: string }>) => tools.map((t) => t.name);

describe("Agent tool registries", () => {
  it("every chat style the tools layer names has its rules", () => {
    assert.deepEqual(CHAT_STYLES.map((style) => chatStyleRules(style).name), [...CHAT_STYLES]);
  });

  it("own tools, then context tools, then the built-in system tools; explicit, per agent", () => {
    const agent = new Agent({ role: "a", tools: [make("findSlot")], context: { moveMeeting: make("moveMeeting"), today: new Date(0) } });
    assert.deepEqual(names(agent.registry.all), ["findSlot", "moveMeeting", "brief", "docstr"]);
    assert.deepEqual(names(agent.registry.own), ["findSlot", "moveMeeting"]);
    const bare = new Agent({ role: "b", systemTools: [] });
    assert.deepEqual(names(bare.registry.all), [], "no hidden global list: an agent without system tools has none");
  });

  it("refuses a context tool under another name and system tools not made with tool()", () => {
    assert.throws(() => new Agent({ role: "a", context: { other: make("moveMeeting") } }), {
      message: "Agent 'a': context entry 'other' holds tool 'moveMeeting'; use the tool's own name",
    });
    assert.throws(() => new Agent({ role: "a", systemTools: [(() => 1) as never] }), /every entry of systemTools must be made with tool\(\)/);
  });

  it("checks LLM_TOOLS_SCOPE against its registry and chat style when made", () => {
    assert.doesNotThrow(() => new Agent({ role: "a", tools: [make("x")], metadata: { LLM_TOOLS_SCOPE: "APPLICATION+brief" } }));
    assert.throws(() => new Agent({ role: "a", metadata: { LLM_TOOLS_SCOPE: 3 } }), { message: "Agent 'a': metadata LLM_TOOLS_SCOPE must be a string" });
    assert.throws(() => new Agent({ role: "a", metadata: { LLM_TOOLS_SCOPE: "+nothing" } }), /unknown tool 'nothing'/);
  });

  it("the default system prompt shows each tool's parameter types and mentions brief and docstr", async () => {
    class Calendar {}
    const findEmptySlot = tool({
      name: "findEmptySlot",
      description: "Find an available calendar slot after a given time.\n\nSearches forward from `after`.",
      params: z.object({
        calendar: z.instanceof(Calendar).describe("Calendar to search."),
        after: z.date().describe("Earliest start."),
        durationMinutes: z.number().default(30).describe("Length."),
      }),
      run: () => null,
    });
    const system = async (options: { systemTools?: [] }) => {
      const model = scriptedModel(["```ts\nexit()\n```"]);
      const agent = new Agent({ role: "prompted", tools: [findEmptySlot], model, ...options });
      const statek = await Statek.open({ store: ":memory:", agents: [agent] });
      await statek.runJob((await statek.submitJob(agent, { vars: { today: new Date(0) } })).id);
      await statek.close();
      return model.requests[0]!.system;
    };
    assert.equal(await system({}), [
      "You are an agent working in a durable TypeScript workspace. Write TypeScript in ```ts fenced blocks; each reply's code runs " +
        "as one cell and its console output comes back to you. Variables you declare at the top level persist between steps. " +
        "Call exit(result) when the task is done.",
      "Your code runs in an isolated sandbox (the quickjs executor): it reaches the application only through the variables and tools you are given.",
      WORKSPACE_GLOBALS_NOTE,
      "",
      "Available variables: today (Date)",
      "Available tools (call them from your code; each returns a promise you can await):",
      "findEmptySlot(calendar: Calendar, after: Date, durationMinutes?: number) — Find an available calendar slot after a given time.",
      "",
      "For more documentation, brief(x, method?) prints the short form of a tool, function, class, object or method, " +
        "and docstr(x, method?) its TypeScript declaration with JSDoc.",
    ].join("\n"));
    assert.doesNotMatch(await system({ systemTools: [] }), /brief\(|docstr\(/, "an agent without the documentation tools is not told about them");
  });
});
