/**
 * @module
 * Human approval of tool calls (DESIGN.md §4, §7). A tool defined with `needsApproval` (always, or when a
 * predicate over its validated arguments says so) does not run when agent code calls it: the call becomes an
 * {@link ApprovalRequest}, which the job runner turns into a durable wait of kind `approval` settled by
 * `statek.approve(jobId, requestId, { note })` / `statek.deny(…)`. Approved, agent code's own runtime calls the
 * tool again with the approval's key (a new, journaled crossing: it runs once); denied, the awaiting code
 * throws `ApprovalDenied: <note>`. The built-in `requestApproval(summary)` waits the same way and resolves to
 * the approver's note.
 */
import { llmRepr } from "./llm-repr.ts";
import type { ToolContext } from "./tool.ts";

/** A JSON value (a request's arguments as the store keeps them). */
export type ApprovalJson = null | boolean | number | string | ApprovalJson[] | { [key: string]: ApprovalJson };

/** A human's decision on an approval request, as the approved call sees it in `ctx.approval`. */
export interface ApprovalDecision {
  /** The request's id (what `approve`/`deny` named). */
  requestId: string;
  approved: boolean;
  /** The note given with the decision, if any. */
  note?: string;
  /** Who decided (`approve(…, { by })`). */
  by: string;
  /** When, in epoch milliseconds. */
  decidedAt: number;
}

/** What a call that needs approval returns instead of running. Never crosses into the sandbox. */
export interface ApprovalRequest {
  readonly kind: "statek.approval";
  /** The request's id: the key of its durable future (`${idempotencyKey}:approval`). */
  readonly key: string;
  readonly tool: string;
  /** The validated arguments as the model and the approver read them. */
  readonly args: string;
  /** The validated arguments as JSON (host objects and values JSON cannot hold as their readable form). */
  readonly argsJson: { [key: string]: ApprovalJson };
  /** What the request is about (`requestApproval(summary)`). */
  readonly summary?: string;
  /** What approval gives the waiting code: the tool's call made (`call`), or the approver's note (`note`). */
  readonly resume: "call" | "note";
}

/** The reply tag that tells the guest runtime "approved: make the call again with this key" (`guest-runtime.ts`). */
export const APPROVED_REPLY_TAG = "a";

/** True for a value made by {@link approvalRequest}. */
export function isApprovalRequest(value: unknown): value is ApprovalRequest {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.approval";
}

/** The request for a call of `tool` with validated `args` (its key derives from the call's idempotency key). */
export function approvalRequest(ctx: Pick<ToolContext, "idempotencyKey">, tool: string, args: Record<string, unknown>, options: { summary?: string; resume?: "call" | "note" } = {}): ApprovalRequest {
  const key = `${ctx.idempotencyKey}:approval`;
  return Object.freeze({
    kind: "statek.approval" as const,
    key,
    tool,
    args: llmRepr(args, { maxDepth: 2, maxItems: 10 }),
    argsJson: toJsonObject(args),
    ...(options.summary === undefined ? {} : { summary: options.summary }),
    resume: options.resume ?? "call",
    // How the call's record shows it.
    [Symbol.for("statek.llmRepr")]: () => `awaiting approval (${key})`,
  });
}

/** The host-internal reply that turns a call into a durable approval wait (`cell-host.ts`; never sent to the guest). */
export function approvalReply(request: ApprovalRequest): string {
  return "f" + JSON.stringify({
    kind: "approval",
    key: request.key,
    tool: request.tool,
    args: request.args,
    argsJson: request.argsJson,
    resume: request.resume,
    ...(request.summary === undefined ? {} : { summary: request.summary }),
  });
}

/** The predicate a tool's `needsApproval` option is: always, never, or by its arguments. */
export type NeedsApproval = boolean | ((args: any, ctx: ToolContext) => boolean);

/** Validates `needsApproval` at `tool()` time. */
export function checkNeedsApproval(label: string, value: unknown): NeedsApproval {
  if (value === undefined) return false;
  if (typeof value !== "boolean" && typeof value !== "function") {
    throw new TypeError(`${label}: needsApproval must be true, false or a function (args, ctx) => boolean`);
  }
  return value as NeedsApproval;
}

/** Whether a call with validated `args` needs approval; a predicate that throws or answers a non-boolean is the call's error. */
export function callNeedsApproval(name: string, needsApproval: NeedsApproval, args: Record<string, unknown>, ctx: ToolContext): boolean {
  if (typeof needsApproval === "boolean") return needsApproval;
  const answer: unknown = needsApproval(args, ctx);
  if (typeof answer !== "boolean") throw new TypeError(`tool '${name}': needsApproval(args, ctx) must return true or false, got ${typeof answer}`);
  return answer;
}

/** Longest string kept in a request's JSON arguments. */
const MAX_STRING = 10_000;

function toJsonObject(args: Record<string, unknown>): { [key: string]: ApprovalJson } {
  const out: { [key: string]: ApprovalJson } = {};
  for (const [name, value] of Object.entries(args)) if (value !== undefined) out[name] = toApprovalJson(value);
  return out;
}

/**
 * A value as JSON for people to read: plain data stays data, dates become ISO strings, anything else (host
 * objects, functions, cycles, deep nesting) its readable form.
 */
export function toApprovalJson(value: unknown, depth = 0, seen = new Set<object>()): ApprovalJson {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return llmRepr(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (seen.has(value) || depth >= 8) return llmRepr(value, { maxDepth: 1, maxItems: 5 });
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    seen.add(value);
    const items = value.slice(0, 100).map((item) => toApprovalJson(item, depth + 1, seen));
    seen.delete(value);
    return items;
  }
  if (proto !== Object.prototype && proto !== null) return llmRepr(value, { maxDepth: 1, maxItems: 5 });
  seen.add(value);
  const out: { [key: string]: ApprovalJson } = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = toApprovalJson(item, depth + 1, seen);
  seen.delete(value);
  return out;
}
