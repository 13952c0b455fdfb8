/**
 * @module
 * Human approval of tool calls. A tool defined with `needsApproval` (always, or when a
 * predicate over its validated arguments says so) does not run when agent code calls it: the call becomes an
 * {@link ApprovalRequest}, which the job runner turns into a durable wait of kind `approval` settled by
 * `statek.approve(jobId, requestId, { note })` / `statek.deny(…)`. Approved, agent code's own runtime calls the
 * tool again with the approval's key (a new, journaled crossing: it runs once); denied, the awaiting code
 * throws `ApprovalDenied: <note>`. Agent code's own `requestApproval(summary)` (a workspace global) waits the
 * same way and resolves to the approver's note (`durable/approval-waits.ts` makes its request).
 */
import { llmRepr } from "./llm-repr.ts";
import { toReadableJson, type ReadableJson } from "./readable-json.ts";
import type { ToolContext } from "./tool.ts";

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
  readonly argsJson: { [key: string]: ReadableJson };
  /** What approval gives the waiting code: the tool's call, made again by the guest (`requestApproval`'s requests, made by the job, give the note). */
  readonly resume: "call";
}

/** The reply tag that tells the guest runtime "approved: make the call again with this key" (`guest-runtime.ts`). */
export const APPROVED_REPLY_TAG = "a";

/** True for a value made by {@link approvalRequest}. */
export function isApprovalRequest(value: unknown): value is ApprovalRequest {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.approval";
}

/** The request for a call of `tool` with validated `args` (its key derives from the call's idempotency key). */
export function approvalRequest(ctx: Pick<ToolContext, "idempotencyKey">, tool: string, args: Record<string, unknown>): ApprovalRequest {
  const key = `${ctx.idempotencyKey}:approval`;
  return Object.freeze({
    kind: "statek.approval" as const,
    key,
    tool,
    args: llmRepr(args, { maxDepth: 2, maxItems: 10 }),
    argsJson: toJsonObject(args),
    resume: "call" as const,
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

function toJsonObject(args: Record<string, unknown>): { [key: string]: ReadableJson } {
  const out: { [key: string]: ReadableJson } = {};
  for (const [name, value] of Object.entries(args)) if (value !== undefined) out[name] = toReadableJson(value);
  return out;
}
