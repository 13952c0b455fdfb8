/**
 * Checked futures (the seed's temporal functions): a tool with `check(args)` returns `ctx.future(key, { everyMs,
 * timeoutMs })`; while the job waits, a worker calls `check` with the stored arguments on schedule — backing
 * off while it throws, a few at a time — and settles the future with the first value it returns. getAny/getAll
 * work over such futures; the tool's error handler registers when the value arrives; a worker process killed
 * with SIGKILL is replaced by another that checks the same future and finishes the job.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, errorHandler, scriptedModel, tool, type JobView } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const dir = mkdtempSync(join(tmpdir(), "statek-checked-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves with the job's view once `done` holds for it (looked at after each of its steps). */
async function until(statek: Statek, id: string, done: (view: JobView) => boolean): Promise<JobView> {
  const events = statek.events({ jobId: id });
  try {
    let view = (await statek.getJob(id))!;
    if (done(view)) return view;
    for await (const event of events) {
      if (event.kind !== "step-end") continue;
      view = (await statek.getJob(id))!;
      if (done(view)) return view;
    }
    throw new Error("the events ended");
  } finally {
    await events.return?.();
  }
}

/** A promise with its resolve function. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe("checked futures", () => {
  it("a worker checks on schedule, backs off while the check throws, and settles with the first value; getAny/getAll wait on them; the error handler registers with the value", async () => {
    const shipped = new Map<string, string>();
    const calls: string[] = [];
    let failing = 2;
    const thirdCall = deferred();
    const secondOrder = deferred();
    const released: unknown[] = [];
    const release = errorHandler({ name: "_forgetShipment", run: (context: unknown) => void released.push(context) });
    const whenShipped = tool({
      name: "whenShipped",
      description: "Waits until an order ships.",
      params: z.object({ id: z.string().describe("Order id.") }),
      errorHandler: release,
      run: ({ id }, ctx) => ctx.future(`ship:${id}`, { everyMs: 20, timeoutMs: 600_000 }),
      check: ({ id }) => {
        calls.push(id);
        if (calls.length === 3) thirdCall.resolve();
        if (id === "B-2") secondOrder.resolve();
        if (failing > 0) {
          failing--;
          throw new Error("the order system is down");
        }
        return shipped.get(id);
      },
    });
    const cell = [
      "const first = await getAny([whenShipped('A-17'), sleep(3_600_000)])",
      "const both = await getAll([whenShipped('A-17'), whenShipped('B-2')])",
      "print(first, both.join())",
      "await waitForMessage()",
    ].join("\n");
    const agent = new Agent({ role: "shipper", tools: [whenShipped], model: scriptedModel([ts(cell)]) });
    const statek = await Statek.open({ store: join(dir, "in-process.db"), agents: [agent] });
    const problems: string[] = [];
    const worker = statek.worker({ onActivity: (activity) => activity.kind === "check-error" && problems.push(`${activity.key}: ${String(activity.error)}`) });
    try {
      const { id } = await statek.submitJob(agent);
      await worker.start();
      await thirdCall.promise;
      assert.deepEqual(problems, ["ship:A-17: Error: the order system is down", "ship:A-17: Error: the order system is down"]);
      const waiting = (await statek.getJob(id))!;
      assert.equal(waiting.status, "SUSPENDED", "the job waits; the worker checks without stepping it");
      assert.ok(!waiting.history.some((record) => record.kind === "error-handler"), "the handler registers when the value arrives, not before");
      shipped.set("A-17", "2026-12-04");
      // getAny took A-17's value; getAll waits for B-2 too, which the worker checks now.
      await secondOrder.promise;
      shipped.set("B-2", "2026-12-05");
      const view = await until(statek, id, (current) => current.console.length > 0);
      assert.deepEqual(view.console, ["2026-12-04 2026-12-04,2026-12-05"]);
      assert.deepEqual([...new Set(calls)].sort(), ["A-17", "B-2"], "each checked with its own stored arguments");
      await statek.cancelJob(id, "no longer needed");
      assert.deepEqual(released, ["2026-12-04", "2026-12-04", "2026-12-05"], "each call's value registered the tool's error handler, with the value as its context");
    } finally {
      await worker.stop();
      await statek.close();
    }
  });

  it("checks run a few at a time, whatever the number of waiting jobs", async () => {
    let inFlight = 0;
    let most = 0;
    let checked = 0;
    const all = deferred();
    const gate = deferred();
    const ready = tool({
      name: "ready",
      description: "Waits until a thing is ready.",
      params: z.object({ n: z.number().describe("Which thing.") }),
      run: ({ n }, ctx) => ctx.future(`ready:${n}`, { everyMs: 10 }),
      check: async ({ n }) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await gate.promise;
        inFlight--;
        if (++checked === 20) all.resolve();
        return n;
      },
    });
    const agent = new Agent({ role: "waiter", tools: [ready], model: scriptedModel(Array.from({ length: 20 }, () => ts("exit(await ready(n))"))) });
    const statek = await Statek.open({ store: join(dir, "many.db"), agents: [agent] });
    const worker = statek.worker({ maxConcurrency: 20 });
    try {
      const ids = await Promise.all(Array.from({ length: 20 }, async (_, n) => (await statek.submitJob(agent, { vars: { n } })).id));
      await worker.start();
      while (most < 8) await new Promise((resolve) => setImmediate(resolve));
      gate.resolve();
      await all.promise;
      assert.equal(most, 8, "at most 8 checks at once");
      const views = await Promise.all(ids.map((id) => until(statek, id, (view) => view.status === "DONE")));
      assert.deepEqual(views.map((view) => view.exitStatus), Array.from({ length: 20 }, (_, n) => n));
    } finally {
      await worker.stop();
      await statek.close();
    }
  });

  it("a worker process killed with SIGKILL while the job waits is replaced by another, which checks the stored call and finishes the job", async () => {
    const fixture = join(import.meta.dirname, "fixtures/checked-future-worker.ts");
    const store = join(dir, "restart.db");
    const state = mkdtempSync(join(dir, "orders-"));
    const log = join(state, "checks.log");
    const first = spawn(process.execPath, [fixture, store, state, "submit"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    first.stdout.on("data", (chunk) => (output += chunk));
    first.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise((resolve) => first.on("exit", resolve));
    try {
      const statek = await Statek.open({ store });
      try {
        // The first worker checks (twice at least: on schedule), the job suspended meanwhile.
        for (;;) {
          const id = /job (\S+)/.exec(output)?.[1];
          const checks = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").length : 0;
          if (id && checks >= 2 && (await statek.store.getJob(id))?.status === "SUSPENDED") break;
          assert.equal(first.exitCode, null, output);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      } finally {
        await statek.close();
      }
      first.kill("SIGKILL");
      await exited;
      const id = /job (\S+)/.exec(output)![1]!;
      writeFileSync(join(state, "A-17.shipped"), "2026-12-04\n");
      const second = spawn(process.execPath, [fixture, store, state, "work", id], { stdio: ["ignore", "pipe", "pipe"] });
      let secondOutput = "";
      second.stdout.on("data", (chunk) => (secondOutput += chunk));
      second.stderr.on("data", (chunk) => (secondOutput += chunk));
      const code = await new Promise((resolve) => second.on("exit", resolve));
      assert.equal(code, 0, secondOutput);
      assert.match(secondOutput, /ended DONE "shipped 2026-12-04"/);
      const pids = new Set(readFileSync(log, "utf8").trim().split("\n").map((line) => line.split(" ")[0]));
      assert.deepEqual([...pids].sort(), [String(first.pid), String(second.pid)].sort(), "both processes checked it");
    } finally {
      if (first.exitCode === null) first.kill("SIGKILL");
    }
  });
});
