/**
 * Worker processes for the multi-process tests: test/fixtures/worker-process.ts run as a real child, its output
 * kept, with a way to wait for a line it prints and to read the worker's stats (the JSON it prints last).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const fixture = join(import.meta.dirname, "../fixtures/worker-process.ts");

/** A running worker-process child. */
export interface WorkerChild {
  process: ChildProcess;
  /** Its stdout and stderr. */
  output: () => string;
  stdout: () => string;
  /** Resolves once the child printed `text` (rejects if it exits first). */
  printed(text: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** What a worker child counted, from the JSON line it prints last on stdout. */
export interface WorkerChildStats {
  steps: number;
  done: number;
  failed: number;
  stepErrors: number;
}

/** Starts the fixture (worker-process.ts unless another is named) with `args` (and `env` added to this process's). */
export function startWorkerChild(args: string[], env: Record<string, string> = {}, script = fixture): WorkerChild {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  let errors = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout!.on("data", (chunk) => {
    output += chunk;
    for (const waiter of [...waiters]) if (output.includes(waiter.text)) waiter.resolve();
  });
  child.stderr!.on("data", (chunk) => (errors += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    process: child,
    output: () => output + errors,
    stdout: () => output,
    printed: (text) => new Promise((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then(({ code }) => reject(new Error(`the child exited (${code}) before printing ${text}: ${(output + errors).slice(-2000)}`)));
    }),
    exited,
  };
}

/** Runs the fixture to its end; fails unless it exits 0. Resolves to the child. */
export async function runWorkerChild(args: string[], script = fixture): Promise<WorkerChild> {
  const child = startWorkerChild(args, {}, script);
  const { code } = await child.exited;
  assert.equal(code, 0, child.output());
  return child;
}

/** The worker's stats: the JSON on the last line of its stdout. */
export function workerChildStats(child: WorkerChild): WorkerChildStats {
  return JSON.parse(child.stdout().trim().split("\n").at(-1)!);
}
