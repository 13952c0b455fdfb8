/**
 * The hostile-code harness. Each case runs one hostile cell as a real job under the default
 * (QuickJS) executor, with a second, ordinary job running in the same worker at the same time — twice: cold (every
 * step builds its job's VM from the stored variables) and warm (a job's VM is kept between its steps) — and
 * asserts:
 *
 * 1. the attempt fails with a clear message in the hostile job's console;
 * 2. the worker is alive: the hostile job goes on to its next turns in a working workspace, and timers fire;
 * 3. the other job finishes with the right result;
 * 4. memory stays bounded: no VM ever held more than its memory bound, and the process's peak RSS during
 *    the case stayed within the bound of the VMs alive at once plus a fixed allowance for the host.
 *
 * The file name is not `*.test.ts`: it only defines the harness the three hostile test files use.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { z } from "zod";
import { Agent } from "../../src/agents/agent.ts";
import type { JobView } from "../../src/jobs/history/job-view.ts";
import { Statek } from "../../src/jobs/statek.ts";
import { scriptedModel, type ScriptedTurn } from "../../src/models/scripted-model.ts";
import { tool } from "../../src/tools/tool.ts";
import type { Executor, Vm } from "../../src/workspace/executor.ts";
import type { WorkspaceLimits } from "../../src/workspace/limits.ts";
import type { ExposeOptions } from "../../src/workspace/membrane/exposed-classes.ts";
import { contendedSqliteStore, type ContentionOptions } from "../support/contended-sqlite.ts";
import { createQuickJsExecutor } from "../../src/workspace/quickjs/quickjs-executor.ts";
import { forgingExecutor, type Forgery } from "../../src/workspace/suite/forging-executor.ts";

const MiB = 1024 * 1024;
/** The memory bound of every VM in the hostile cases. */
export const HOSTILE_MEMORY_BYTES = 32 * MiB;
/** What the host itself may add to the peak RSS during a case (SQLite, strings crossing, V8's heap). */
const HOST_ALLOWANCE_BYTES = 160 * MiB;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * The executor of every case in a file: its sandbox threads start with the first case (the baseline of the memory
 * check of later cases includes them), as in a worker that runs many jobs.
 */
const quickjs = createQuickJsExecutor({ invokeTimeMs: 500 });

/** A host object agent code gets as `calendar`. */
export class Calendar {
  owner = "ana";
  _secret = "the host's secret";
  received: unknown[] = [];
  noop(): void {}
  later(ms: number): Promise<number> {
    return new Promise((resolve) => setTimeout(() => resolve(ms), Math.min(Number(ms) || 0, 20)));
  }
  /** Settles after a second: long enough that a cell's un-awaited calls pile up. */
  slow(): Promise<number> {
    return new Promise((resolve) => setTimeout(() => resolve(1), 1_000).unref());
  }
  keep(value: unknown): number {
    this.received.push(value);
    return this.received.length;
  }
  each(callback: (value: number) => void): void {
    for (const value of [1, 2, 3]) callback(value);
  }
  fail(): never {
    throw new RangeError("the calendar is closed");
  }
  async laterText(size: number): Promise<string> {
    return "x".repeat(size);
  }
  async laterFunction(): Promise<unknown> {
    return Function;
  }
  isPolluted(): boolean {
    return ({} as Record<string, unknown>).polluted !== undefined || this.received.some((value) => Object.getPrototypeOf(value) !== Object.prototype);
  }
  functionConstructor(): unknown {
    return Function;
  }
}

/** An application class exposed with a member policy. */
export class Meeting {
  title = "standup";
  room = "A";
  notes = "the host's notes";
  cancel(): string {
    return "cancelled";
  }
  deleteForever(): string {
    return "deleted";
  }
}

/** An application object registered process-wide (`Statek.open({ bindings })`) that no agent is given. */
export class AdminVault {
  secret = "the keys to everything";
}

/** A host object that counts, for the ordinary job. */
class Counter {
  tick(n: number): Promise<number> {
    return new Promise((resolve) => setTimeout(() => resolve(n), 1));
  }
}

const ts = (code: string): string => "```ts\n" + code + "\n```";

/**
 * The tools of the hostile agent: two it may call (`twice`, side-effecting, so each call is journaled durably;
 * `peek`, which reads the workspace variable `trap` while it runs), one outside its allowed set, one hidden.
 */
export function hostileTools() {
  const twice = tool({ name: "twice", description: "Doubles a number.", params: z.object({ x: z.number().describe("x") }), run: ({ x }) => x * 2 });
  const peek = tool({ name: "peek", description: "Reads the variable trap.", readOnly: true, run: (_args, ctx) => typeof ctx.variable("trap")?.value });
  const wipe = tool({ name: "wipe", description: "Deletes everything.", run: () => "wiped" });
  const adminReset = tool({ name: "adminReset", description: "Internal reset.", hidden: true, run: () => "reset" });
  return { twice, peek, wipe, adminReset };
}

/** How a case runs: every step in a VM built from the stored variables, or in the job's VM kept warm. */
type Mode = "cold" | "warm";

/** One hostile case. */
export interface HostileCase {
  name: string;
  /** The hostile cell. */
  code: string;
  /** A console entry of the hostile cell must match this (a string must equal the entry). */
  expect: string | RegExp;
  limits?: Partial<WorkspaceLimits>;
  /** Formal tool calls the hostile model reply makes besides its code. */
  toolCalls?: Array<{ name: string; args: Record<string, unknown> }>;
  /** Extra assertions on the hostile job. */
  check?: (view: JobView, calendar: Calendar) => void;
  /** How `Meeting` is exposed. @default { deny: ["delete*"], readOnly: ["title"] } */
  expose?: ExposeOptions<Meeting>;
  /** Run both jobs on a SQLite file whose connection meets real lock contention (`support/contended-sqlite.ts`). */
  contention?: ContentionOptions;
  /** Texts to forge on their way from the guest to the host (a realm that is locked down cannot forge them). */
  forge?: Forgery;
}

/** An executor that remembers the most memory each of its VMs held. */
function trackingExecutor(inner: Executor): { executor: Executor; peaks: number[]; live: () => number; maxLive: () => number } {
  const peaks: number[] = [];
  let live = 0;
  let maxLive = 0;
  const executor: Executor = {
    name: inner.name,
    isolated: inner.isolated,
    async createVm(options) {
      const vm = await inner.createVm(options);
      const index = peaks.push(vm.reservedMemory() ?? 0) - 1;
      const note = () => {
        peaks[index] = Math.max(peaks[index]!, vm.reservedMemory() ?? 0);
      };
      live++;
      maxLive = Math.max(maxLive, live);
      const tracked: Vm = {
        get usable() {
          return vm.usable;
        },
        invoke: async (entry, args, invokeOptions) => {
          try {
            return await vm.invoke(entry, args, invokeOptions);
          } finally {
            note();
          }
        },
        runCell: async (script, cellOptions) => {
          try {
            return await vm.runCell(script, cellOptions);
          } finally {
            note();
          }
        },
        ...(vm.readDuringCall ? { readDuringCall: vm.readDuringCall.bind(vm) } : {}),
        ...(vm.invokeDuringCall ? { invokeDuringCall: vm.invokeDuringCall.bind(vm) } : {}),
        memoryUsage: () => vm.memoryUsage(),
        reservedMemory: () => vm.reservedMemory(),
        dispose: () => {
          note();
          live--;
          vm.dispose();
        },
      };
      return tracked;
    },
  };
  return { executor, peaks, live: () => live, maxLive: () => maxLive };
}

async function runCase(test: HostileCase, mode: Mode): Promise<void> {
  gc();
  const rssBefore = process.memoryUsage().rss;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const tracking = trackingExecutor(test.forge ? forgingExecutor(quickjs, test.forge) : quickjs);
  const calendar = new Calendar();
  const { twice, peek, wipe, adminReset } = hostileTools();
  const hostileTurns: ScriptedTurn[] = [
    test.toolCalls ? { text: ts(test.code), toolCalls: test.toolCalls } : ts(test.code),
    ts("print('still alive', typeof calendar, twice(21))"),
    ts("exit('survived')"),
  ];
  const hostile = new Agent({
    role: "hostile",
    model: scriptedModel(hostileTurns),
    tools: [twice, peek, wipe, adminReset],
    allowedTools: ["twice", "peek"],
    context: { calendar, meeting: new Meeting(), formatSlot: (slot: unknown) => `slot ${String(slot)}` },
    harness: { maxTurns: 10 },
    // Hostile code is outside every declaration on purpose: these cases test the sandbox, not the type checker
    // (whose thread would also count in the worker's memory bound below).
    typeCheck: "off",
  });
  const ordinary = new Agent({
    role: "ordinary",
    model: scriptedModel([
      ts("let total = 0\nfor (let i = 1; i <= 10; i++) total += await counter.tick(i)"),
      ts("total += [1, 2, 3].reduce((a, b) => a + b)"),
      ts("exit(total)"),
    ]),
    context: { counter: new Counter() },
    typeCheck: "off",
  });
  const contended = test.contention ? contendedSqliteStore(test.contention) : undefined;
  const statek = await Statek.open({
    store: contended?.store ?? ":memory:",
    agents: [hostile, ordinary],
    bindings: { adminVault: new AdminVault() },
    executor: tracking.executor,
    workspaceLimits: { cellTimeMs: 300, memoryBytes: HOSTILE_MEMORY_BYTES, maxHostCalls: 20_000, ...test.limits },
    warmJobs: mode === "warm" ? 100 : 0,
  });
  statek.expose(Meeting, test.expose ?? { deny: ["delete*"], readOnly: ["title"] });
  contended?.arm();
  try {
    const [bad, good] = await Promise.all([
      statek.submitJob(hostile).then(({ id }) => statek.runJob(id)),
      statek.submitJob(ordinary).then(({ id }) => statek.runJob(id)),
    ]);
    const matches = (entry: string) => (typeof test.expect === "string" ? entry === test.expect : test.expect.test(entry));
    const shown = bad.console.map((entry) => (entry.length > 300 ? `${entry.slice(0, 300)}… (${entry.length} characters)` : entry)).join("\n");
    assert.ok(bad.console.some(matches), `expected a console entry matching ${String(test.expect)}; the console was:\n${shown}`);
    assert.ok(bad.console.includes("still alive object 42"), `the hostile job's next cell did not run in a working workspace:\n${shown}`);
    assert.equal(bad.status, "DONE", bad.error ?? "");
    assert.equal(bad.exitStatus, "survived");
    test.check?.(bad, calendar);
    assert.equal(good.status, "DONE", `the ordinary job: ${good.error ?? ""}\n${good.console.join("\n")}`);
    assert.equal(good.exitStatus, 61, "the ordinary job computed its result");
    await new Promise((resolve) => setTimeout(resolve, 1));
  } finally {
    contended?.release();
    await statek.close();
    await contended?.store.close();
    contended?.close();
  }
  if (contended) assert.ok(contended.busy() > 0, "the store met the lock");
  for (const peak of tracking.peaks) assert.ok(peak <= HOSTILE_MEMORY_BYTES, `a VM held ${peak} bytes, over its bound of ${HOSTILE_MEMORY_BYTES}`);
  const peakAfter = process.resourceUsage().maxRSS * 1024;
  const allowed = rssBefore + tracking.maxLive() * HOSTILE_MEMORY_BYTES + HOST_ALLOWANCE_BYTES;
  assert.ok(
    peakAfter <= Math.max(peakBefore, allowed),
    `the worker's peak RSS reached ${(peakAfter / MiB).toFixed(0)} MiB, over ${(allowed / MiB).toFixed(0)} MiB ` +
      `(${(rssBefore / MiB).toFixed(0)} MiB before, ${tracking.maxLive()} VMs at once)`,
  );
}

/** Defines one `describe` block of hostile cases. */
export function hostileSuite(title: string, cases: readonly HostileCase[]): void {
  describe(title, () => {
    const names = new Set<string>();
    for (const test of cases) {
      if (names.has(test.name)) throw new Error(`duplicate hostile case: ${test.name}`);
      names.add(test.name);
      for (const mode of ["cold", "warm"] as const) it(`${test.name} (${mode})`, () => runCase(test, mode));
    }
  });
}
