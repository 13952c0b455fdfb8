/**
 * Typed cells through real jobs (scripted models, the QuickJS executor): a cell with a type error never runs
 * under the default, the model reads the errors like a compiler's, `warn` and `off` behave as documented, the
 * refusal is recorded for the operator and counts as an exception, and replays are never checked again.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool, type ScriptedTurn } from "../src/index.ts";
import { CheckerThread } from "../src/typecheck/checker-thread.ts";
import type { HistoryRecord } from "../src/jobs/history/history.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

class Calendar {
  readonly booked: Date[] = [];
  book(at: Date) {
    this.booked.push(at);
    return at.toISOString();
  }
}

function calendarTools(calls: string[]) {
  return [
    tool({
      name: "findEmptySlot",
      description: "Find a free slot after a time.",
      params: z.object({ calendar: z.instanceof(Calendar).describe("The calendar."), after: z.date().describe("Earliest start.") }),
      returns: z.object({ start: z.date(), minutes: z.number() }),
      run: async ({ after }) => {
        calls.push(`findEmptySlot(${after.toISOString()})`);
        return { start: new Date(after.getTime() + 3_600_000), minutes: 30 };
      },
    }),
    tool({
      name: "notify",
      description: "Tell the user something (a side effect).",
      params: z.object({ text: z.string().describe("What to say.") }),
      run: async ({ text }) => {
        calls.push(`notify(${text})`);
        return "sent";
      },
    }),
  ];
}

async function runJob(turns: ScriptedTurn[], options: { agent?: Partial<ConstructorParameters<typeof Agent>[0]>; submit?: Parameters<Statek["submitJob"]>[1]; thread?: CheckerThread } = {}) {
  const calls: string[] = [];
  const model = scriptedModel(turns);
  const calendar = new Calendar();
  const agent = new Agent({ role: "planner", model, tools: calendarTools(calls), ...options.agent });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], bindings: { calendar }, ...(options.thread ? { typeCheckerThread: options.thread } : {}) });
  try {
    const { id } = await statek.submitJob(agent, { vars: { calendar }, ...options.submit });
    const view = await statek.runJob(id);
    const journal = await statek.store.getJournal(id);
    return { view, model, calls, journal, statek };
  } finally {
    await statek.close();
  }
}

const lastUserText = (model: ReturnType<typeof scriptedModel>, request = -1) =>
  (model.requests.at(request)!.messages.at(-1)!.content as Array<{ text: string }>).map((part) => part.text).join("");

const typeChecks = (history: readonly HistoryRecord[]) => history.flatMap((record) => (record.kind === "type-check" ? [record.data] : []));

const MISTYPED = "await notify('checking your calendar')\nconst from = new Date('2030-01-01T09:00:00Z')\nconst slot = await findEmptySlot(calendar, '2030-01-01')\nprint(slot.start)";
const ERROR = "TypeError: line 3: Argument of type 'string' is not assignable to parameter of type 'Date'. (TS2345)";

describe("typed cells", () => {
  it("refuses a cell with a type error by default: nothing of it runs, the model reads the error, the job goes on", async () => {
    const { view, model, calls, journal } = await runJob([ts(MISTYPED), ts("const slot = await findEmptySlot(calendar, new Date('2030-01-01T09:00:00Z'))\nexit(slot.minutes)")]);
    assert.deepEqual(calls, ["findEmptySlot(2030-01-01T09:00:00.000Z)"], "the refused cell's first line (a side effect) never ran");
    assert.equal(view.console[0], ERROR);
    assert.match(view.console[1]!, /the cell was not run: it has type errors/);
    assert.equal(lastUserText(model, 1), `${ERROR}\nthe cell was not run: it has type errors (every cell is type-checked before it runs)`);
    assert.equal(view.status, "DONE");
    assert.equal(view.exitStatus, 30);
    const [record] = typeChecks(view.history);
    assert.deepEqual(record && { ...record, durationMs: 0 }, {
      part: "cell", outcome: "refused", durationMs: 0,
      errors: [{ line: 3, column: 44, code: 2345, message: "Argument of type 'string' is not assignable to parameter of type 'Date'." }],
    });
    assert.equal(journal, null, "a refused cell journals nothing");
    assert.equal(view.history.filter((record) => record.kind === "tool-call").length, 1, "only the second cell called a tool");
  });

  it("counts a refusal as an exception for the harness", async () => {
    const { view, calls } = await runJob([ts(MISTYPED), ts(MISTYPED), ts("exit()")], { agent: { harness: { maxConsecutiveExceptions: 1 } } });
    assert.equal(view.status, "FAILED");
    assert.match(view.error ?? "", /2 turns in a row raised exceptions, more than the limit of 1/);
    assert.deepEqual(calls, []);
  });

  it("prints the errors first and runs the cell with typeCheck: \"warn\" (an ISO string becomes a Date at run time)", async () => {
    const { view, calls } = await runJob([ts(MISTYPED), ts("exit()")], { agent: { typeCheck: "warn" } });
    assert.deepEqual(calls, ["notify(checking your calendar)", "findEmptySlot(2030-01-01T00:00:00.000Z)"]);
    assert.deepEqual(view.console, [`the cell has type errors; it runs anyway (TYPE_CHECK is "warn"):\n${ERROR}`, "sent", "2030-01-01T01:00:00Z"]);
    assert.equal(typeChecks(view.history)[0]?.outcome, "warned");
  });

  it("does not check with typeCheck: \"off\", set on the job over its agent's metadata", async () => {
    const { view, calls } = await runJob([ts(MISTYPED), ts("exit()")], { agent: { metadata: { TYPE_CHECK: "refuse" } }, submit: { typeCheck: "off" } });
    assert.equal(calls.length, 2);
    assert.deepEqual(view.console, ["sent", "2030-01-01T01:00:00Z"]);
    assert.deepEqual(typeChecks(view.history), []);
  });

  it("takes the mode from metadata TYPE_CHECK, and names a bad one when the agent is made", async () => {
    const { view } = await runJob([ts(MISTYPED), ts("exit()")], { agent: { metadata: { TYPE_CHECK: "WARN" } } });
    assert.equal(typeChecks(view.history)[0]?.outcome, "warned");
    assert.throws(() => new Agent({ role: "bad", metadata: { TYPE_CHECK: "strict" } }), /metadata TYPE_CHECK must be one of "refuse", "warn", "off", got "strict"/);
    assert.throws(() => new Agent({ role: "bad", typeCheck: "loose" as never }), /typeCheck must be one of "refuse", "warn", "off", got "loose"/);
  });

  it("checks against what earlier cells declared: functions with their parameter types, type aliases, stored values", async () => {
    const { view, model } = await runJob([
      ts("type Plan = { title: string; minutes: number }\nfunction describePlan(plan: Plan): string { return `${plan.title} (${plan.minutes} min)` }\nconst plans: Plan[] = [{ title: 'standup', minutes: 15 }]"),
      ts("print(describePlan({ title: 'review' }))"),
      ts("const next: Plan = { title: 'review', minutes: 30 }\nplans.push(next)\nprint(plans.map(describePlan).join(', '))\nexit(plans.length)"),
    ]);
    assert.equal(lastUserText(model, 2).split("\n")[0], "TypeError: line 1: Argument of type '{ title: string; }' is not assignable to parameter of type 'Plan'. (TS2345)");
    assert.equal(view.status, "DONE");
    assert.equal(view.console.at(-1), "standup (15 min), review (30 min)");
  });

  it("refuses a ts_cli call of the DIRECT style: its result is the errors", async () => {
    const { view, model } = await runJob([
      { toolCalls: [{ name: "ts_cli", args: { code: "await notify(42)" } }] },
      { toolCalls: [{ name: "ts_cli", args: { code: "exit(await notify('42'))" } }] },
    ], { agent: { chatStyle: "DIRECT" } });
    const result = model.requests[1]!.messages.at(-1)!;
    assert.equal(result.role, "tool");
    assert.match(JSON.stringify(result.content), /TypeError: line 1: Argument of type 'number' is not assignable to parameter of type 'string'. \(TS2345\)/);
    assert.equal(typeChecks(view.history)[0]?.part, "ts:call-0-0");
    assert.equal(view.exitStatus, "sent");
  });

  it("answers a cell from the kept verdict when the cells since the last check declared nothing", async () => {
    const thread = new CheckerThread();
    try {
      const agent = new Agent({
        role: "repeater",
        model: scriptedModel([ts("1"), ts("print(2)"), ts("1"), ts("let n: string = 'a'"), ts("1"), ts("n.toFixed(2)"), ts("exit(n.length)")]),
      });
      const statek = await Statek.open({ store: ":memory:", agents: [agent], typeCheckerThread: thread });
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      // The second `1` comes after cells that declared nothing: its input is the first `1`'s, so the kept verdict
      // answers it. The third follows the `let`, a new input, and is checked.
      assert.equal(thread.checksCached, 1);
      assert.equal(thread.checksAnswered, 6);
      // The declaration still reaches the later cells through the cells that declared nothing.
      assert.equal(typeChecks(view.history).map((record) => record.outcome).join(","), "refused");
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, 1);
      await statek.close();
    } finally {
      await thread.close();
    }
  });

  it("does not check a suspended cell again when it resumes", async () => {
    const thread = new CheckerThread();
    try {
      const calls: string[] = [];
      const agent = new Agent({ role: "waiter", model: scriptedModel([ts("const text = await waitForMessage()\nawait notify(text)\nexit(text)")]), tools: calendarTools(calls) });
      const statek = await Statek.open({ store: ":memory:", agents: [agent], typeCheckerThread: thread });
      const { id } = await statek.submitJob(agent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const checked = thread.checksAnswered;
      assert.equal(checked, 1);
      await statek.pushMessage(id, "hello");
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(calls, ["notify(hello)"]);
      assert.equal(thread.checksAnswered, checked, "the replayed cell was not checked again");
      await statek.close();
    } finally {
      await thread.close();
    }
  });

  it("starts the checker's thread when a worker is made for agents that check, not at its first cell", async () => {
    for (const typeCheck of ["refuse", "off"] as const) {
      const thread = new CheckerThread();
      try {
        const agent = new Agent({ role: `warm-${typeCheck}`, model: scriptedModel([ts("exit(1)")]), typeCheck });
        const statek = await Statek.open({ store: ":memory:", agents: [agent], typeCheckerThread: thread });
        statek.worker();
        assert.equal(thread.threadStarts, typeCheck === "off" ? 0 : 1, `typeCheck ${typeCheck}`);
        assert.equal(thread.checksAnswered, 0);
        await statek.close();
      } finally {
        await thread.close();
      }
    }
  });
});
