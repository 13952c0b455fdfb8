/**
 * @module
 * Choosing an executor by name (`Statek.open({ executor: "quickjs" | "trusted" })`) or passing one, and the
 * sentence the system prompt uses to tell the model how its code is isolated — taken from the executor in
 * use, so the prompt never claims a sandbox that is not there.
 */
import { kindOf } from "../tools/with-article.ts";
import type { Executor } from "./executor.ts";
import { createQuickJsExecutor } from "./quickjs/quickjs-executor.ts";
import { createTrustedExecutor } from "./trusted/trusted-executor.ts";

/** An executor by name, or one you made. `trusted` is not an isolation boundary. */
export type ExecutorChoice = "quickjs" | "trusted" | Executor;

/**
 * The executor for `choice` (default `quickjs`); throws a `TypeError` for anything else, naming `call` (the
 * public call the choice was given to).
 */
export function resolveExecutor(choice: ExecutorChoice | undefined, call = "Statek.open"): Executor {
  if (choice === undefined || choice === "quickjs") return createQuickJsExecutor();
  if (choice === "trusted") return createTrustedExecutor();
  if (typeof choice === "object" && choice !== null && typeof choice.createVm === "function" && typeof choice.name === "string") return choice;
  const got = typeof choice === "string" ? JSON.stringify(choice) : kindOf(choice);
  throw new TypeError(`${call}: executor: expected "quickjs", "trusted" or an Executor, got ${got}`);
}

/** How the workspace's isolation is described to the model (the `{workspace_isolation}` placeholder). */
export function isolationNotice(executor: Executor): string {
  if (executor.isolated) {
    return `Your code runs in an isolated sandbox (the ${executor.name} executor): it reaches the application only through the variables and tools you are given.`;
  }
  return `Your code runs in the ${executor.name} executor, which is NOT a sandbox: it runs inside the application's own process, for trusted code only.`;
}
