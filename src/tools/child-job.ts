/**
 * @module
 * Child jobs started from a tool (`ctx.startJob(agentOrRole, { vars, params, message })`).
 * `ctx.startJob` prepares the child — its row, variables and opening history, under an id derived from the
 * call's idempotency key — and returns a {@link ChildJobStart} for the tool to return. The job runner creates
 * the child only once the parent's journal records the call (a replay finds the same id and starts nothing
 * twice), and agent code receives a handle it can await: the child's exit value, or `ChildJobFailed: …`.
 */
import type { ToolAgent } from "./tool.ts";

/** What `ctx.startJob` accepts besides the agent. */
export interface StartJobOptions {
  /** The child's initial workspace variables (host objects that persist: bindings, exposed classes). */
  vars?: Readonly<Record<string, unknown>>;
  /** The child's parameters (JSON values). */
  params?: Readonly<Record<string, unknown>>;
  /** The child's opening user message. */
  message?: string;
  /** The child's locale (`"pl-PL"`). @default the parent's */
  locale?: string;
}

/** What `ctx.startJob` returns: a tool returns it, and agent code gets the child's handle. Never crosses as is. */
export interface ChildJobStart {
  readonly kind: "statek.child";
  /** The child's job id (also the key of the parent's durable future of kind `child`). */
  readonly key: string;
  readonly role: string;
  /** Everything needed to create the child, as JSON (the job runner's business). */
  readonly spec: unknown;
}

/** Starts child jobs for one tool call (the job runner provides it; workspaces outside a job have none). */
export type ChildJobStarter = (agentOrRole: ToolAgent | string, options: StartJobOptions | undefined, key: string) => ChildJobStart;

/** True for a value made by `ctx.startJob`. */
export function isChildJobStart(value: unknown): value is ChildJobStart {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.child";
}

/** The host-internal reply that makes the cell host create the child and hand the guest its handle. */
export function childStartReply(start: ChildJobStart): string {
  return "f" + JSON.stringify({ kind: "child", key: start.key, role: start.role, spec: start.spec });
}
