/**
 * The Tools page end to end: both routes — a call from agent code in a real QuickJS workspace and
 * a formal call from the model — through the broker, with argument preparation, results, errors, history,
 * `brief`/`docstr`, hidden tools and the seed's own examples. `§10.N` in a test name numbers the scenario it
 * covers.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, describeClass, llmRepr, scriptedModel, tool, type Tool } from "../src/index.ts";
import { createQuickJsExecutor } from "../src/workspace/index.ts";
import { SYSTEM_TOOLS } from "../src/agents/system-tools.ts";
import { Workspace, type WorkspaceReport } from "../src/workspace/workspace.ts";

class User {
  name: string;
  constructor(name: string) {
    this.name = name;
  }
}
describeClass(User, { description: "A person using the calendar.", members: { name: { description: "Their display name.", type: "string" } } });

const Severity = { INFO: "info", ERROR: "error" } as const;
const user = new User("Ada");
const received: unknown[] = [];
const executor = createQuickJsExecutor();
const open: Workspace[] = [];
after(() => open.forEach((workspace) => workspace.dispose()));

const sendTo = tool({
  name: "sendTo",
  description: "Send a message to a user.",
  params: z.object({ recipient: z.instanceof(User).describe("Who receives it."), message: z.string().describe("The message.") }),
  run: ({ recipient, message }) => {
    received.push({ recipient, message });
  },
});
const alert = tool({
  name: "alert",
  description: "Raise an alert.",
  params: z.object({ level: z.enum(Severity).describe("How bad it is.") }),
  run: ({ level }) => {
    received.push(level);
    return `alerted at ${level}`;
  },
});
const schedule = tool({
  name: "schedule",
  description: "Schedule something.",
  params: z.object({ when: z.date().describe("When.") }),
  run: ({ when }) => {
    received.push(when);
    return when;
  },
});
const add = tool({ name: "add", description: "Add.", params: z.object({ a: z.number().describe("a"), b: z.number().describe("b") }), run: ({ a, b }) => a + b });
const greet = tool({
  name: "greet",
  description: "Greet.",
  params: z.object({ name: z.string().describe("Who."), greeting: z.string().default("Hello").describe("How.") }),
  run: ({ name, greeting }) => `${greeting}, ${name}!`,
});
const asyncDouble = tool({ name: "asyncDouble", description: "Double, later.", params: z.object({ n: z.number().describe("n") }), run: async ({ n }) => n * 2 });
const boom = tool({ name: "boom", description: "Fails.", params: z.object({ later: z.boolean().default(false).describe("Asynchronously.") }), run: ({ later }) => {
  if (later) return Promise.reject(new RangeError("async boom"));
  throw new TypeError("boom");
} });
const nothing = tool({ name: "nothing", description: "Returns nothing.", params: z.object({ asNull: z.boolean().default(false).describe("Return null.") }), run: ({ asNull }) => (asNull ? null : undefined) });
const chatty = tool({ name: "chatty", description: "Prints, then returns.", run: (_args, ctx) => {
  ctx.print("working on it");
  return { done: true };
} });
class Person {
  name: string;
  constructor(name: string) {
    this.name = name;
  }
  [llmRepr.symbol](): string {
    return `custom:${this.name}`;
  }
}
const people = tool({ name: "people", description: "Two people.", run: () => [new Person("anna"), new Person("jan")] });
const context = tool({ name: "context", description: "What ctx holds.", run: (_args, ctx) => ({
  job: ctx.job.id, role: ctx.job.role, agent: ctx.agent.role, style: ctx.job.metadata.CHAT_STYLE, aborted: ctx.signal.aborted,
  user: ctx.variable("user")?.value instanceof User, missing: ctx.variable("nobody"), print: typeof ctx.print,
}) });
// Hidden: refused to agent code (a `_` name alone would only keep it unlisted).
const adapter = tool({ name: "_loadAdapter", description: "Load an internal adapter.", hidden: true, run: () => "adapter" });

const TOOLS: Tool[] = [sendTo, alert, schedule, add, greet, asyncDouble, boom, nothing, chatty, people, context, adapter as Tool, ...SYSTEM_TOOLS];

async function workspace(options: { globals?: Record<string, unknown>; metadata?: Record<string, unknown> } = {}): Promise<Workspace> {
  const globals = options.globals ?? { user };
  const opened = await Workspace.open({
    executor,
    limits: { cellTimeMs: 2_000 },
    job: { id: "job-1", role: "assistant", metadata: options.metadata ?? { CHAT_STYLE: "MARKDOWN" } },
    tools: TOOLS,
    globals,
    bindings: new Map(Object.entries(globals)),
  }, []);
  open.push(opened);
  return opened;
}

const out = (report: WorkspaceReport) => report.console.filter((entry) => entry.stream !== "notice").map((entry) => entry.text);
const calls = (report: WorkspaceReport) => report.toolCalls.map(({ durationMs: _, ...rest }) => rest);

describe("the seed's examples, in TypeScript", () => {
  it("sendTo(\"user\", …) binds the live user and keeps the message literal", async () => {
    received.length = 0;
    const ws = await workspace();
    const report = await ws.runCell('sendTo("user", "Your meeting moved to 3 PM.")');
    assert.equal(report.error, undefined);
    assert.deepEqual(received, [{ recipient: user, message: "Your meeting moved to 3 PM." }]);
    assert.equal(received.length === 1 && (received[0] as { recipient: unknown }).recipient, user, "the host object itself");
    assert.deepEqual(out(report), [], "§10.34 undefined results print nothing");
  });

  it('"ERROR" reaches the tool as Severity.ERROR; "2026-03-10T15:00:00Z" arrives as a Date', async () => {
    received.length = 0;
    const ws = await workspace();
    const report = await ws.runCell('alert("ERROR")\nschedule("2026-03-10T15:00:00Z")');
    assert.deepEqual(received, [Severity.ERROR, new Date("2026-03-10T15:00:00Z")]);
    assert.ok(received[1] instanceof Date);
    assert.deepEqual(out(report), ["alerted at error", "2026-03-10T15:00:00Z"]);
  });

  it("a hidden tool cannot be called from agent code, nor formally", async () => {
    const ws = await workspace();
    const code = await ws.runCell("_loadAdapter()");
    assert.equal(code.error, "NameError: tool '_loadAdapter' is not exposed to this job");
    assert.equal(calls(code)[0]!.error, "NameError: tool '_loadAdapter' is not exposed to this job");
    const formal = await ws.callFormal("_loadAdapter", {}, "call-1");
    assert.deepEqual(calls(formal), [{ name: "_loadAdapter", origin: "formal", callId: "call-1", args: "{}", error: "NameError: tool '_loadAdapter' is not exposed to this job" }]);
    const allowed = await ws.runCell("_loadAdapter()", { allowHiddenTools: true });
    assert.deepEqual(out(allowed), ["adapter"], "warmup code marked hidden may call it");
    assert.equal((await ws.runCell("_loadAdapter()")).error, "NameError: tool '_loadAdapter' is not exposed to this job", "only that cell");
  });

  it("tool results are real values in the workspace", async () => {
    const ws = await workspace();
    const report = await ws.runCell('const when = schedule("2026-03-10")\nprint(when instanceof Date, when.getUTCDate())');
    assert.deepEqual(out(report), ["true 10"]);
    assert.deepEqual(report.put.map((row) => row.name), ["when"]);
  });
});

describe("calls from agent code", () => {
  it("§10.38 positional and named forms; defaults applied; §10.39 sync and async both awaitable", async () => {
    const ws = await workspace();
    const report = await ws.runCell("print(add(3, 5), add({ a: 1, b: 2 }), greet('World', 'Hi'), greet({ name: 'Bo' }), await asyncDouble(21), await add(1, 1))");
    assert.deepEqual(out(report), ["8 3 Hi, World! Hello, Bo! 42 2"]);
  });

  it("§10.36 a thrown error is `<ErrorName>: <message>`, catchable, and in the history", async () => {
    const ws = await workspace();
    assert.equal((await ws.runCell("boom()")).error, "TypeError: boom");
    const report = await ws.runCell("try { await boom(true) } catch (e) { print(e.name, e.message) }");
    assert.deepEqual(out(report), ["RangeError async boom"]);
    assert.equal(calls(report)[0]!.error, "RangeError: async boom");
  });

  it("§10.56 print joins with spaces, strings raw, other values with llmRepr", async () => {
    const ws = await workspace();
    assert.deepEqual(out(await ws.runCell('print(1, "two", [3])\nprint()\nprint(new Date(Date.UTC(2026, 0, 1, 12)))')), ["1 two [3]", "", "2026-01-01T12:00:00Z"]);
  });

  it("§10.21/§10.24 a variable the model created binds by name; ctx.variable reads it live", async () => {
    received.length = 0;
    const ws = await workspace();
    await ws.runCell('const myDate = new Date("2025-01-01T00:00:00Z")');
    await ws.runCell("schedule('myDate')");
    assert.deepEqual(received, [new Date("2025-01-01T00:00:00Z")]);
    assert.deepEqual(ws.variable("myDate"), { value: new Date("2025-01-01T00:00:00Z") });
    assert.equal(ws.variable("user")?.value, user, "provided context values are found");
    assert.equal(ws.variable("nowhere"), undefined);
    assert.equal(ws.variable("print"), undefined, "the runtime's own globals are not variables");
    assert.equal(ws.variable("Math"), undefined, "nor are built-ins");
  });

  it("§10.26 a workspace variable shadows a context value of the same name", async () => {
    received.length = 0;
    const ws = await workspace();
    await ws.runCell('user = new Date("2024-02-02T00:00:00Z")');
    await ws.runCell("schedule('user')");
    assert.deepEqual(received, [new Date("2024-02-02T00:00:00Z")]);
  });

  it("§10.25/§10.17 a name that is no variable, or whose value does not fit, stays a string", async () => {
    const ws = await workspace();
    await ws.runCell("const note = 'hello'");
    assert.equal((await ws.runCell("sendTo('admin', 'x')")).error, 'ValidationError: sendTo(recipient): expected a User, got "admin"');
    assert.equal((await ws.runCell("sendTo('note', 'x')")).error, 'ValidationError: sendTo(recipient): expected a User, got "note"');
  });

  it("§10.31/§10.41 ctx gives the job, the agent, print, variable lookup and an abort signal", async () => {
    const ws = await workspace();
    const report = await ws.runCell("context()");
    assert.deepEqual(out(report), ['{job:"job-1",role:"assistant",agent:"assistant",style:"MARKDOWN",aborted:false,user:true,missing:undefined,print:"function"}']);
  });

  it("§10.33 results use llmRepr hooks in collections; §10.34 null prints nothing", async () => {
    const ws = await workspace();
    const listed = await ws.runCell("people()");
    assert.deepEqual(out(listed), ["[custom:anna,custom:jan]"]);
    assert.equal(calls(listed)[0]!.result, "[custom:anna,custom:jan]");
    assert.equal(calls(await ws.callFormal("people", {}, "c1"))[0]!.result, "[custom:anna,custom:jan]");
    const report = await ws.runCell("nothing(true)\nnothing()");
    assert.deepEqual(out(report), ["null"], "a null expression echoes in the cell (a REPL), but the tool result text is empty");
    assert.deepEqual(calls(report).map((call) => call.result), ["", ""]);
  });

  it("§10.45 each call is recorded with its prepared arguments, formatted for reading", async () => {
    const ws = await workspace();
    const report = await ws.runCell("greet('ana')\nalert('ERROR')\nsendTo('user', 'hi')");
    assert.deepEqual(calls(report).map((call) => call.args), ['{name:"ana",greeting:"Hello"}', '{level:"error"}', '{recipient:User {name:"Ada"},message:"hi"}']);
  });
});

describe("formal calls from the model", () => {
  it("§10.32/§10.37 a named call; its result text; the console untouched", async () => {
    const ws = await workspace();
    const report = await ws.callFormal("add", { a: 3, b: 4 }, "call-1");
    assert.deepEqual(calls(report), [{ name: "add", origin: "formal", callId: "call-1", args: "{a:3,b:4}", result: "7" }]);
    assert.deepEqual(report.console, []);
  });

  it("§10.23/§10.15 the same preparation: live variables by name, enum names, ISO dates", async () => {
    received.length = 0;
    const ws = await workspace();
    await ws.callFormal("sendTo", { recipient: "user", message: "user" }, "c1");
    await ws.callFormal("alert", { level: "INFO" }, "c2");
    await ws.callFormal("schedule", { when: "2026-03-10T15:00:00Z" }, "c3");
    assert.deepEqual(received, [{ recipient: user, message: "user" }, "info", new Date("2026-03-10T15:00:00Z")]);
  });

  it("§10.35/§10.36 unknown tools and thrown errors are results, never raised; the console stays empty", async () => {
    const ws = await workspace();
    const unknown = await ws.callFormal("missingTool", {}, "c1");
    assert.equal(calls(unknown)[0]!.error, "NameError: tool 'missingTool' not found");
    const failed = await ws.callFormal("boom", { later: true }, "c2");
    assert.equal(calls(failed)[0]!.error, "RangeError: async boom");
    assert.equal(failed.error, undefined);
    assert.deepEqual([...unknown.console, ...failed.console], []);
  });

  it("what a tool prints during a formal call is part of its result", async () => {
    const ws = await workspace();
    const report = await ws.callFormal("chatty", {}, "c1");
    assert.equal(calls(report)[0]!.result, "working on it\n{done:true}");
    assert.deepEqual(report.console, []);
  });

  it("§10.78 brief and docstr formally, by variable name", async () => {
    const ws = await workspace();
    const briefly = await ws.callFormal("brief", { what: "user", method: "" }, "c1");
    assert.deepEqual(calls(briefly)[0]!.result, "User — A person using the calendar.\n    name — Their display name.");
    const fully = await ws.callFormal("docstr", { what: "sendTo" }, "c2");
    assert.match(calls(fully)[0]!.result!, /^\/\*\*\n \* Send a message to a user\.[\s\S]*declare function sendTo\(recipient: User, message: string\): Promise<unknown>;$/);
  });
});

describe("brief() and docstr() in a cell", () => {
  it("§10.74/§10.77 document tools, objects and methods into the console; a blank method documents the thing", async () => {
    const ws = await workspace();
    const report = await ws.runCell('brief(add)\nbrief(user, "   ")\ndocstr(user, " name ")');
    assert.deepEqual(out(report), [
      "add(a, b) — Add.",
      "User — A person using the calendar.\n    name — Their display name.",
      "declare class User {\n  /** Their display name. */\n  name: string;\n}",
    ]);
  });

  it("§10.75 readable errors are printed and the cell goes on", async () => {
    const ws = await workspace();
    const report = await ws.runCell('brief("unknownTool")\ndocstr(user, "foo")\nbrief(add, "x")\ndocstr(42)\nbrief("_loadAdapter")\nprint("still running")');
    assert.equal(report.error, undefined);
    assert.deepEqual(out(report), [
      "NameError: name 'unknownTool' is not defined",
      "Error: User has no method 'foo'",
      "Error: add is not a class",
      "Error: brief() and docstr() document tools, functions, classes and objects of classes; got a number",
      "NameError: tool '_loadAdapter' is not exposed to this job",
      "still running",
    ]);
  });
});

describe("a job with formal tools", () => {
  it("§10.43/§10.94 results align with the model's call ids; the payload holds the selection, hidden tools never", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "add", args: { a: 1, b: 2 }, id: "ok-1" }, { name: "boom", args: { later: false }, id: "bad-2" }, { name: "_loadAdapter", args: {}, id: "hidden-3" }] },
      "```ts\nexit('done')\n```",
    ], { provider: "openai.responses" });
    const agent = new Agent({
      role: "formal",
      tools: [add, boom, adapter as Tool],
      model,
      metadata: { LLM_TOOLS_SCOPE: "ALL", CHAT_STYLE: "MARKDOWN" },
      systemPrompt: "Tools:\n{brief_tools}\n\n{detailed_tools}",
    });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const view = await statek.runJob((await statek.submitJob(agent)).id);
      assert.equal(view.status, "DONE");
      const first = model.requests[0]!;
      assert.deepEqual(first.tools.map((t) => t.name), ["add", "boom", "brief", "docstr"]);
      assert.doesNotMatch(first.system, /_loadAdapter|internal adapter/);
      assert.match(first.system, /add\(a, b\) — Add\.\nboom\(later\?\) — Fails\./);
      const toolMessage = model.requests[1]!.messages.find((message) => message.role === "tool")!;
      assert.deepEqual((toolMessage.content as Array<{ toolCallId: string; output: unknown }>).map((part) => [part.toolCallId, part.output]), [
        ["ok-1", { type: "text", value: "3" }],
        ["bad-2", { type: "error-text", value: "TypeError: boom" }],
        ["hidden-3", { type: "error-text", value: "NameError: tool '_loadAdapter' is not exposed to this job" }],
      ]);
      const records = view.history.flatMap((record) => (record.kind === "tool-call" ? [[record.data.callId, record.data.error ?? record.data.result]] : []));
      assert.deepEqual(records, [["ok-1", "3"], ["bad-2", "TypeError: boom"], ["hidden-3", "NameError: tool '_loadAdapter' is not exposed to this job"]]);
    } finally {
      await statek.close();
    }
  });

  it("a bad LLM_TOOLS_SCOPE is refused when the agent is made", () => {
    assert.throws(() => new Agent({ role: "bad", tools: [add], metadata: { LLM_TOOLS_SCOPE: "SYSTEM+" } }), {
      name: "TypeError",
      message: `Agent 'bad': LLM_TOOLS_SCOPE "SYSTEM+": the list '+' has an empty tool name`,
    });
    assert.throws(() => new Agent({ role: "bad", tools: [add], metadata: { LLM_TOOLS_SCOPE: "ALL+_loadAdapter" } }), /unknown tool '_loadAdapter'/);
  });
});
