import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, NoEventVariableError, Statek, scriptedModel, tool, type JobEvent, type WorkerActivity } from "../../index.ts";

/** A SQLite file in a fresh directory (removed by `remove`). */
function tempStore() {
  const dir = mkdtempSync(join(tmpdir(), "statek-agents-"));
  return { path: join(dir, "statek.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves when `predicate` holds, checking after each worker activity (and at most every 20 ms). */
async function until(predicate: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function statuses(statek: Statek, role: string): Promise<string[]> {
  return (await statek.listJobs({ role, limit: 1000 })).map((job) => job.status).sort();
}

describe("agent events", () => {
  it("make exactly one job per event, oldest first, the event bound to the agent's eventVariable, whatever its value", async () => {
    const store = tempStore();
    const handler = new Agent({ role: "order_handler", eventVariable: "order", model: scriptedModel([]), warmup: "exit({ id: order.id, at: order.at instanceof Date, items: order.items.size })" });
    const statek = await Statek.open({ store: store.path, agents: [handler] });
    try {
      for (const id of [1, 2, 3]) await statek.pushAgentEvent("order_handler", { id, at: new Date(), items: new Map([["a", id]]) });
      assert.equal((await statek.agentHealth("order_handler")).queuedEvents, 3, "events wait in the store until a worker takes them");
      const made: string[][] = [];
      const worker = statek.worker({ maxConcurrency: 2, onActivity: (activity) => void (activity.kind === "agent-jobs" && made.push(activity.jobIds)) });
      await worker.start();
      await until(async () => (await statuses(statek, "order_handler")).join() === "DONE,DONE,DONE", "three DONE jobs");
      const jobs = (await statek.listJobs({ role: "order_handler" })).reverse();
      const exits = await Promise.all(jobs.map(async (job) => (await statek.getJob(job.id))!.exitStatus));
      assert.deepEqual(exits, [1, 2, 3].map((id) => ({ id, at: true, items: 1 })));
      assert.deepEqual(made.flat().sort(), jobs.map((job) => job.id).sort(), "every job came from an event");
      assert.equal((await statek.agentHealth("order_handler")).queuedEvents, 0);
      assert.equal(worker.stats.agents.order_handler?.fromEvents, 3);
      // The last step's end is counted once its commit has returned, just after the job reads DONE.
      await until(async () => worker.stats.agents.order_handler?.done === 3, "the stats");
      await worker.stop();
    } finally {
      await statek.close();
      store.remove();
    }
  });

  it("bind to the one name the warmup reads without declaring, and refuse an agent without one, naming its role", async () => {
    const store = tempStore();
    const echo = tool({ name: "echo", description: "Echoes.", params: z.object({ text: z.string().describe("Text.") }), run: ({ text }) => text });
    const inferred = new Agent({ role: "inferred", tools: [echo], model: scriptedModel([]), warmup: "const label = 'got ' + ticket.title\nawait echo(label)\nexit(label)" });
    const vague = new Agent({ role: "vague", model: scriptedModel([]), context: { b: 1 }, warmup: "exit(a + b)" });
    const statek = await Statek.open({ store: store.path, agents: [inferred, vague] });
    try {
      // `b` is in the agent's context: `a` is the one free name, the event binds to it.
      await statek.pushAgentEvent("vague", 41);
      const refused = new Agent({ role: "refused", model: scriptedModel([]), warmup: "exit(x + y)" });
      const silent = new Agent({ role: "silent", model: scriptedModel([]), warmup: "const x = 1\nexit(Math.max(x, 2))" });
      statek.register(refused);
      statek.register(silent);
      await assert.rejects(statek.pushAgentEvent("refused", 1), (error: unknown) => {
        assert.ok(error instanceof NoEventVariableError);
        assert.equal(error.role, "refused");
        assert.deepEqual(error.freeNames, ["x", "y"]);
        assert.match(error.message, /agent 'refused' cannot take events: its warmup reads 2 free names: x, y; name the variable/);
        return true;
      });
      await assert.rejects(statek.pushAgentEvent("silent", 1), /agent 'silent' cannot take events: its warmup reads no free name/);
      await assert.rejects(statek.pushAgentEvent("inferred", () => 1), /pushAgentEvent: these variables cannot be stored/);
      assert.equal((await statek.agentHealth("refused")).queuedEvents, 0, "nothing was queued");
      await statek.pushAgentEvent("inferred", { title: "printer" });
      const worker = statek.worker();
      await worker.start();
      await until(async () => (await statuses(statek, "inferred")).join() === "DONE" && (await statuses(statek, "vague")).join() === "DONE", "the jobs", 60_000).catch(async (error) => {
        const jobs = await statek.listJobs({});
        throw new Error(`${String(error)}: ${JSON.stringify(jobs.map((job) => [job.role, job.status, job.error]))}`);
      });
      const [vagueJob] = await statek.listJobs({ role: "vague" });
      assert.equal((await statek.getJob(vagueJob!.id))!.exitStatus, 42);
      const [job] = await statek.listJobs({ role: "inferred" });
      assert.equal((await statek.getJob(job!.id))!.exitStatus, "got printer");
      await worker.stop();
    } finally {
      await statek.close();
      store.remove();
    }
  });

  it("of an agent that cannot bind them stay queued while the worker reports the role, and the other agents' go on", async () => {
    const store = tempStore();
    // The pushing process does not have the agents (a web server): the store takes the events as they come.
    const pusher = await Statek.open({ store: store.path });
    const broken = new Agent({ role: "broken", model: scriptedModel([]), warmup: "exit(x + y)" });
    const fine = new Agent({ role: "fine", eventVariable: "n", model: scriptedModel([]), warmup: "exit(n * 2)" });
    const statek = await Statek.open({ store: store.path, agents: [broken, fine] });
    try {
      await pusher.pushAgentEvent("broken", 1);
      await pusher.pushAgentEvent("fine", 21);
      const errors: WorkerActivity[] = [];
      const worker = statek.worker({ onActivity: (activity) => void (activity.kind === "agent-error" && errors.push(activity)) });
      await worker.start();
      await until(async () => (await statuses(statek, "fine")).join() === "DONE", "the fine job");
      assert.equal(errors.length, 1, "reported once");
      assert.ok(errors[0]!.kind === "agent-error" && errors[0]!.role === "broken" && errors[0]!.error instanceof NoEventVariableError);
      assert.equal((await statek.agentHealth("broken")).queuedEvents, 1);
      assert.deepEqual(await statuses(statek, "broken"), []);
      await worker.stop();
    } finally {
      await statek.close();
      await pusher.close();
      store.remove();
    }
  });
});

describe("agentic loops", () => {
  it("keep min(free slots, queueSize − pending) jobs going until the queue is empty, never more", async () => {
    const store = tempStore();
    const inbox = Array.from({ length: 9 }, (_, index) => `task ${index}`);
    const taken: string[] = [];
    const take = tool({
      name: "take", description: "Takes the next task.", params: z.object({}),
      run: async () => {
        // Slow enough that several jobs are in flight at once.
        await new Promise((resolve) => setTimeout(resolve, 30));
        const task = inbox.shift();
        if (task !== undefined) taken.push(task);
        return task ?? null;
      },
    });
    const triage = new Agent({ role: "triage", tools: [take], model: scriptedModel([]), warmup: "exit(await take())" });
    const statek = await Statek.open({ store: store.path, agents: [triage] });
    let asked = 0;
    try {
      const worker = statek.worker({ maxConcurrency: 3, loops: [{ agent: triage, queueSize: () => (asked++, inbox.length), everyMs: 50 }] });
      await worker.start();
      await until(async () => inbox.length === 0 && (await statuses(statek, "triage")).every((status) => status === "DONE"), "the inbox drained");
      // A few more passes of the loop: nothing more is made for an empty queue.
      const before = asked;
      await until(async () => asked >= before + 3, "more loop passes");
      const jobs = await statek.listJobs({ role: "triage", limit: 100 });
      assert.equal(jobs.length, 9, "one job per task, none more");
      assert.equal(taken.length, 9);
      const exits = await Promise.all(jobs.map(async (job) => (await statek.getJob(job.id))!.exitStatus));
      assert.ok(exits.every((exit) => typeof exit === "string"), "no job found the queue empty");
      assert.equal(worker.stats.agents.triage?.fromLoop, 9);
      assert.equal(worker.stats.agents.triage?.loopSize, 0);
      assert.equal((await statek.agentHealth("triage")).loopSize, 0, "the store keeps what the loop read last");
      await worker.stop();
    } finally {
      await statek.close();
      store.remove();
    }
  });

  it("log a failing or slow queueSize and go on; several loops run in one worker", async () => {
    const store = tempStore();
    const a = new Agent({ role: "a", model: scriptedModel([]), warmup: "exit('a')" });
    const b = new Agent({ role: "b", model: scriptedModel([]), warmup: "exit('b')" });
    const c = new Agent({ role: "c", model: scriptedModel([]), warmup: "exit('c')" });
    const statek = await Statek.open({ store: store.path });
    let aCalls = 0;
    let bLeft = 2;
    const errors: string[] = [];
    try {
      const worker = statek.worker({
        maxConcurrency: 4,
        onActivity: (activity) => void (activity.kind === "loop-error" && errors.push(`${activity.role}: ${String(activity.error)}`)),
        loops: [
          { agent: a, queueSize: () => (++aCalls === 1 ? Promise.reject(new Error("inbox offline")) : aCalls === 2 ? 1 : 0), everyMs: 20 },
          { agent: b, queueSize: () => bLeft--, everyMs: 20 },
          { agent: c, queueSize: () => new Promise<number>(() => {}), timeoutMs: 50, everyMs: 20 },
        ],
      });
      await worker.start();
      await until(async () => (await statuses(statek, "a")).join() === "DONE" && (await statuses(statek, "b")).length >= 1 && errors.some((e) => e.startsWith("c:")), "both loops and the errors");
      assert.ok(errors.includes("a: Error: inbox offline"), errors.join("\n"));
      assert.ok(errors.some((error) => error === "c: Error: queueSize of agent 'c' did not answer within 50 ms"), errors.join("\n"));
      assert.deepEqual(await statuses(statek, "c"), []);
      assert.ok(worker.stats.agents.c!.loopErrors >= 1);
      await worker.stop();
    } finally {
      await statek.close();
      store.remove();
    }
  });

  it("check their options", async () => {
    const statek = await Statek.open({ store: ":memory:" });
    const agent = new Agent({ role: "x", model: scriptedModel([]) });
    try {
      assert.throws(() => statek.worker({ loops: {} as never }), /worker: loops must be an array/);
      assert.throws(() => statek.worker({ loops: [{ agent: {} as never, queueSize: () => 1 }] }), /loops\[0\].agent must be an Agent/);
      assert.throws(() => statek.worker({ loops: [{ agent, queueSize: 3 as never }] }), /loops\[0\].queueSize must be a function/);
      assert.throws(() => statek.worker({ loops: [{ agent, queueSize: () => 1, timeoutMs: 0 }] }), /loops\[0\].timeoutMs must be an integer of at least 1/);
      assert.throws(() => statek.worker({ loops: [{ agent, queueSize: () => 1 }, { agent, queueSize: () => 2 }] }), /agent 'x' has a loop already/);
      assert.throws(() => new Agent({ role: "y", eventVariable: "not a name" }), /eventVariable must be an identifier/);
      assert.throws(() => new Agent({ role: "y", breaker: { failures: 0 } }), /breaker.failures must be an integer of at least 1/);
    } finally {
      await statek.close();
    }
  });
});

describe("circuit breakers", () => {
  it("open on a warmup failure, keep queued events while open, survive a restart, and close on resetAgent", async () => {
    const store = tempStore();
    let fail = true;
    const check = tool({ name: "check", description: "Checks the setup.", params: z.object({}), run: () => { if (fail) throw new Error("setup broken"); return "ok"; } });
    const makeAgent = () => new Agent({ role: "handler", eventVariable: "event", tools: [check], model: scriptedModel([]), warmup: "await check()\nexit(event)" });
    let statek = await Statek.open({ store: store.path, agents: [makeAgent()] });
    try {
      const events = statek.events();
      const worker = statek.worker();
      await worker.start();
      await statek.pushAgentEvent("handler", 1);
      await until(async () => (await statek.agentHealth("handler")).state === "open", "the breaker to open");
      const health = await statek.agentHealth("handler");
      assert.match(health.reason!, /setup broken/);
      assert.equal(health.failures, 1);
      assert.ok(health.openedAt! > 0);
      let breaker: JobEvent | undefined;
      for await (const event of events) {
        if (event.kind === "agent-breaker") {
          breaker = event;
          break;
        }
      }
      assert.ok(breaker?.kind === "agent-breaker" && breaker.role === "handler" && breaker.state === "open");
      const [failed] = await statek.listJobs({ role: "handler" });
      assert.equal(breaker.jobId, failed!.id, "the event names the job whose failure opened it");
      await statek.pushAgentEvent("handler", 2);
      await statek.pushAgentEvent("handler", 3);
      // The worker heard the pushes (each wakes it) and made nothing: the events wait.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(await statuses(statek, "handler"), ["FAILED"]);
      assert.equal((await statek.agentHealth("handler")).queuedEvents, 2);
      await worker.stop();
      await statek.close();
      // A restart keeps the breaker open.
      fail = false;
      statek = await Statek.open({ store: store.path, agents: [makeAgent()] });
      assert.equal((await statek.agentHealth("handler")).state, "open");
      const again = statek.worker();
      await again.start();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(await statuses(statek, "handler"), ["FAILED"]);
      const reset = await statek.resetAgent("handler");
      assert.deepEqual([reset.state, reset.failures, reset.reason, reset.queuedEvents], ["closed", 0, undefined, 2]);
      await until(async () => (await statuses(statek, "handler")).join() === "DONE,DONE,FAILED", "the kept events to run after the reset");
      await again.stop();
    } finally {
      await statek.close();
      store.remove();
    }
  });

  it("open after breaker.failures jobs FAILED in a row (a DONE one clears the count); submitJob still works while open", async () => {
    const store = tempStore();
    // No scripted turn left: each job that reaches the model fails; `exit` in the warmup finishes one DONE.
    const agent = new Agent({ role: "flaky", eventVariable: "finish", model: scriptedModel([]), warmup: "if (finish) exit('done')", breaker: { failures: 2 } });
    const statek = await Statek.open({ store: store.path, agents: [agent] });
    try {
      const worker = statek.worker({ maxConcurrency: 1 });
      await worker.start();
      const settle = async (count: number) => until(async () => (await statek.listJobs({ role: "flaky" })).filter((job) => job.status === "DONE" || job.status === "FAILED").length === count, `${count} ended jobs`);
      await statek.pushAgentEvent("flaky", false);
      await settle(1);
      await statek.pushAgentEvent("flaky", true);
      await settle(2);
      await statek.pushAgentEvent("flaky", false);
      await settle(3);
      assert.equal((await statek.agentHealth("flaky")).state, "closed", "FAILED, DONE, FAILED: never two in a row");
      await statek.pushAgentEvent("flaky", false);
      await settle(4);
      const health = await statek.agentHealth("flaky");
      assert.equal(health.state, "open");
      assert.match(health.reason!, /^2 jobs in a row failed; the last: /);
      await statek.pushAgentEvent("flaky", true);
      const { id } = await statek.submitJob(agent, { vars: { finish: true } });
      await until(async () => (await statek.getJob(id))!.status === "DONE", "the submitted job");
      assert.equal((await statek.agentHealth("flaky")).queuedEvents, 1, "events wait while the breaker is open");
      await worker.stop();
    } finally {
      await statek.close();
      store.remove();
    }
  });
});
