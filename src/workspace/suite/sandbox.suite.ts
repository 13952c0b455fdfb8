/**
 * @module
 * Workspace suite, the sandbox's time: timers inside a cell, the CPU limit that counts
 * guest time only (never the time the host takes to answer), and restoring variables as part of the next
 * cell — under its limits, with its tool calls in its records.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { tool } from "../../tools/tool.ts";
import type { SuiteContext } from "./harness.ts";

/** Blocks the host for `ms` (a synchronous host call that takes a while, like a slow database driver). */
function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

export function sandboxCases({ test, session }: SuiteContext): void {
  test("timers: callbacks run in time order inside the cell; clearTimeout and clearInterval stop them", async () => {
    const job = session();
    const output = await job.output([
      "const order = []",
      // Timers with one delay fire in the order they were set; a timer set by a callback fires after both.
      "setTimeout(() => { order.push('first'); setTimeout(() => order.push('third'), 1) }, 1)",
      "setTimeout(() => order.push('second'), 1)",
      "const gone = setTimeout(() => order.push('cleared'), 1)",
      "clearTimeout(gone)",
      "let ticks = 0",
      "const every = setInterval(() => { ticks++; if (ticks === 3) clearInterval(every) }, 2)",
      // Waits for the events, not a fixed time (a loaded machine may tick late), then a while longer: the
      // cleared interval must not tick again.
      "await new Promise((resolve) => { const poll = setInterval(() => { if (ticks >= 3 && order.length >= 3) { clearInterval(poll); resolve() } }, 5) })",
      "await new Promise((resolve) => setTimeout(resolve, 30))",
      "print(order.join(','), ticks)",
    ].join("\n"));
    assert.equal(output.split("\n").at(-1), "first,second,third 3");
  });

  test("timers: a pending setTimeout keeps the cell going after its code finished; an interval alone does not", async () => {
    const job = session();
    const result = await job.ok("setTimeout(() => print('later'), 10);\nprint('now')");
    assert.deepEqual(result.texts("out"), ["now", "later"]);
    const interval = await job.run("setInterval(() => print('tick'), 1000);\nprint('done')");
    assert.equal(interval.error, undefined);
    assert.deepEqual(interval.texts("out"), ["done"]);
  });

  test("timers: a callback that throws ends the cell with its error; callbacks count against the CPU limit", async () => {
    const job = session({ limits: { cellTimeMs: 300 } });
    const thrown = await job.run("setTimeout(() => { throw new TypeError('boom') }, 1);\nprint('set')");
    assert.equal(thrown.error, "TypeError: boom");
    assert.deepEqual(thrown.texts("out"), ["set"]);
    const spinning = await job.run("setTimeout(() => { while (true) {} }, 1)");
    assert.equal(spinning.error, "TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped");
    assert.equal(await job.output("typeof setTimeout"), "function", "the workspace goes on");
  });

  test("timers: a callback must be a function; a flood of timers is refused", async () => {
    const job = session({ limits: { maxPendingHostCalls: 10 } });
    const bad = await job.run("setTimeout('print(1)', 1)");
    assert.equal(bad.error, "TypeError: setTimeout: the callback must be a function, got string");
    const flood = await job.run("for (let i = 0; i < 100; i++) setTimeout(() => {}, 1000)");
    assert.equal(flood.error, "RangeError: too many timers pending at once (at most 10, maxPendingHostCalls)");
  });

  test("limits: the time the host takes to answer is not charged to the cell", async () => {
    const slow = tool({
      name: "slowLookup",
      description: "Answers after a while, synchronously.",
      params: z.object({ ms: z.number().describe("How long.") }),
      run: ({ ms }) => {
        blockFor(ms);
        return ms;
      },
    });
    const later = tool({
      name: "slowFetch",
      description: "Answers after a while, asynchronously.",
      params: z.object({ ms: z.number().describe("How long.") }),
      run: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
    });
    const job = session({ tools: [slow, later], limits: { cellTimeMs: 150 } });
    const result = await job.run("let total = 0\nfor (let i = 0; i < 3; i++) total += slowLookup(100) + await slowFetch(100)\ntotal");
    assert.equal(result.error, undefined, "600 ms of host time under a 150 ms CPU limit");
    assert.deepEqual(result.texts("echo"), ["600"]);
  });

  test("limits: every cell has an end — timers that keep it going, a host promise that never settles, a call that never returns", async () => {
    const WALL = "TimeoutError: the cell ran for more than its 400 ms wall-clock limit (cellWallTimeMs), counting the time its host calls, timers and promises took, and was stopped";
    const never = tool({ name: "never", description: "Never answers.", run: () => new Promise(() => {}) });
    const job = session({ tools: [never], limits: { cellTimeMs: 200, cellWallTimeMs: 400 } });
    const timers = await job.run("const kept = 'before'\nconst again = () => setTimeout(again, 40)\nagain()");
    assert.equal(timers.error, WALL);
    assert.equal(timers.limit, "time");
    assert.deepEqual(timers.put.map((row) => row.name).sort(), ["again", "kept"], "the cell's variables are saved: the job goes on");
    const waiting = await job.run("const also = 1\nawait never()");
    assert.equal(waiting.error, WALL);
    assert.equal(await job.output("print(kept, also)"), "before 1", "the workspace goes on");
  });

  test("limits: the wall-clock limit stops guest code that runs between host calls", async () => {
    const job = session({ limits: { cellTimeMs: 60_000, cellWallTimeMs: 300 } });
    const spinning = await job.run("{ let n = 0\nfor (;;) { n++; if (n % 1000 === 0) Date.now() } }");
    assert.match(spinning.error ?? "", /^TimeoutError: the cell ran for more than its 300 ms wall-clock limit/);
  });

  test("restore: agent code that runs while variables are restored belongs to the next cell (limits and records)", async () => {
    const calls: string[] = [];
    const note = tool({
      name: "note",
      description: "Records a note.",
      params: z.object({ text: z.string().describe("The note.") }),
      run: ({ text }) => {
        calls.push(text);
        return calls.length;
      },
    });
    const job = session({ tools: [note], limits: { cellTimeMs: 300 } });
    await job.ok("class Registered { static { note('static block') } }");
    assert.deepEqual(calls, ["static block"]);
    // The next cell restores the class in a new VM: its static block runs again, as part of that cell.
    const next = await job.ok("print('after restore')");
    assert.deepEqual(calls, ["static block", "static block"]);
    assert.deepEqual(next.toolCalls.map((call) => call.name), ["note"], "the restore's tool call is in the cell's records");
    assert.deepEqual(next.texts("out"), ["after restore"]);

    let runs = 0;
    const bump = tool({ name: "bump", description: "Counts its calls.", run: () => ++runs });
    const looping = session({ tools: [bump], limits: { cellTimeMs: 300 } });
    await looping.ok("class Trap { static { if (bump() > 1) while (true) {} } }");
    const stuck = await looping.run("print('never')");
    assert.equal(stuck.error, "TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped");
  }, { coldOnly: "a warm VM keeps its classes, so their static blocks run again only when a new VM restores them" });

  test("waits: outside a job, sleep is a plain timer; waitForMessage needs a job; bad arguments are refused", async () => {
    const job = session();
    assert.deepEqual((await job.ok("{ const started = Date.now()\nawait sleep(20)\nawait until(new Date(Date.now() + 5))\nprint(Date.now() - started >= 20) }")).texts("out"), ["true"]);
    assert.equal((await job.run("await waitForMessage()")).error, "TypeError: waitForMessage() needs a job (this workspace runs without one)");
    assert.equal((await job.run("sleep('soon')")).error, "TypeError: sleep(ms): expected a finite number of milliseconds, got string");
    assert.equal((await job.run("until('never')")).error, "TypeError: until(date): expected a Date, an ISO date string or epoch milliseconds");
    assert.equal((await job.run("await getAll([])")).error, "TypeError: getAll(list): the list is empty");
    assert.deepEqual((await job.ok("print(await getAll([sleep(1), Promise.resolve(2)]), await getAny([new Promise(() => {}), sleep(1).then(() => 'first')]))")).texts("out"), ["[undefined,2] first"]);
  });
}
