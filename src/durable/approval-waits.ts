/**
 * @module
 * The approval waits of one cell: a call of a `needsApproval` tool (or `requestApproval`)
 * becomes a durable future of kind `approval` whose data is what `statek.pendingApprovals` lists; the cell
 * waits for it (its job suspends) until `statek.approve`/`deny` settles it. Approved, a tool's call is made
 * again by agent code's runtime with the request's key, and {@link authorizeApprovedCall} lets it run once:
 * a guard row (`<key>:run`) records which call used the approval, so neither a replay nor agent code calling
 * again can run it twice (the call itself is journaled like every side effect: in doubt after a crash, an
 * idempotent tool is called again with the same key, another reads `InDoubtError`).
 */
import { deniedMessage } from "../errors/approval-denied.ts";
import type { Fence, FutureRow, JsonValue } from "../store/store.ts";
import { APPROVED_REPLY_TAG, type ApprovalDecision } from "../tools/approval.ts";
import type { FutureOutcome } from "../workspace/cell-host.ts";
import type { FutureSignals } from "./future-signals.ts";
import type { FutureStore } from "./job-futures.ts";
import { llmRepr } from "../tools/llm-repr.ts";

/** What an approval wait needs from its cell. */
export interface ApprovalWaitContext {
  store: FutureStore;
  jobId: string;
  role: string;
  cell: number;
  fence: Fence;
  signals: FutureSignals;
  now(): number;
  /** Keeps a listener's stop function until the cell is over. */
  keep(stop: () => void): void;
}

/** The request as the tool call's reply carried it (written by the host: `tools/approval.ts` `approvalReply`). */
interface RequestData {
  key: string;
  tool: string;
  args: string;
  argsJson: JsonValue;
  summary?: string;
  resume: "call" | "note";
}

/** A decision as an approval future's value holds it (`statek.approve`/`deny` write it). */
export interface StoredDecision {
  approved: boolean;
  note?: string;
  by: string;
  decidedAt: number;
}

/** Reads a request the host wrote; anything else is refused (the data comes from the job's own journal). */
function requestOf(data: unknown): RequestData | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { key, tool, args, argsJson, summary, resume } = data as Record<string, unknown>;
  if (typeof key !== "string" || typeof tool !== "string" || typeof args !== "string" || (resume !== "call" && resume !== "note")) return undefined;
  return { key, tool, args, argsJson: (argsJson ?? null) as JsonValue, ...(typeof summary === "string" ? { summary } : {}), resume };
}

/**
 * The decision a settled approval future holds, or `undefined` while it waits. It is read from what
 * `approve`/`deny` wrote: only a resolved request whose value says `approved: true` is approved (the store lets
 * no other door settle a request; anything else there is no approval).
 */
export function decisionOf(row: FutureRow): StoredDecision | undefined {
  if (row.state === "waiting") return undefined;
  const value = typeof row.value === "object" && row.value !== null && !Array.isArray(row.value) ? row.value : {};
  const note = typeof value.note === "string" ? value.note : undefined;
  return {
    approved: row.state === "resolved" && value.approved === true,
    ...(note === undefined ? {} : { note }),
    by: typeof value.by === "string" ? value.by : row.state === "cancelled" ? "cancellation" : "unknown",
    decidedAt: typeof value.decidedAt === "number" ? value.decidedAt : row.settledAt ?? 0,
  };
}

/** How a settled approval reads to the waiting code. */
function outcomeOf(row: FutureRow, request: Pick<RequestData, "key" | "resume">): FutureOutcome | undefined {
  if (row.state === "waiting") return undefined;
  if (row.state === "cancelled") return { error: { name: "CancelledError", message: typeof row.value === "string" ? row.value : "the approval request was cancelled" } };
  const decision = decisionOf(row)!;
  if (!decision.approved) return { error: { name: "ApprovalDenied", message: deniedMessage(decision.note) } };
  // A tool's call is made again by the guest with the key; `requestApproval` resolves to the approver's note.
  return request.resume === "call" ? { reply: APPROVED_REPLY_TAG + request.key } : { value: decision.note };
}

/** Opens (creating it the first time) the approval request a call made; see the module comment. */
export async function openApproval(context: ApprovalWaitContext, data: unknown, settle: (outcome: FutureOutcome) => void): Promise<{ outcome?: FutureOutcome; durable: boolean }> {
  const request = requestOf(data);
  if (!request) return { outcome: { error: { name: "TypeError", message: "an approval request without its data" } }, durable: false };
  const { store, jobId, fence, signals } = context;
  let row = await store.getFuture(request.key);
  // A row nobody owns was settled before the request existed (through another kind's door): it never counts.
  if (!row || row.jobId === null) {
    const { key, ...rest } = request;
    await store.createFutures(jobId, fence, [{ key, jobId, kind: "approval", wakeAt: null, data: { ...rest, role: context.role, requestedAt: context.now() } }]);
    row = await store.getFuture(key);
  }
  if (!row || row.jobId !== jobId || row.kind !== "approval") {
    return { outcome: { error: { name: "Error", message: `the approval request ${request.key} could not be stored` } }, durable: false };
  }
  const known = outcomeOf(row, request);
  if (known) return { outcome: known, durable: true };
  // Decided in this process while the cell still runs: the decision arrives at once.
  context.keep(signals.once(request.key, () => {
    void store.getFuture(request.key).then((settled) => {
      const outcome = settled ? outcomeOf(settled, request) : undefined;
      if (outcome) settle(outcome);
    }, () => {});
  }));
  return { durable: true };
}

/** The request `requestApproval(summary)` makes (agent code gives only the summary; the key is its call's). */
export function requestApprovalOf(key: string, data: unknown): RequestData | undefined {
  const summary = typeof data === "object" && data !== null ? (data as { summary?: unknown }).summary : undefined;
  if (typeof summary !== "string") return undefined;
  return { key, tool: "requestApproval", args: llmRepr({ summary }), argsJson: { summary }, summary, resume: "note" };
}

/** The key of the row that records which call used approval `key`. */
function guardKey(key: string): string {
  return `${key}:run`;
}

/**
 * Lets the approved call `callKey` of `tool` run under approval `key`: this job's, of its current cell, for
 * this tool, approved, and used by no other call. Throws a `TypeError` naming what is wrong.
 */
export async function authorizeApprovedCall(context: ApprovalWaitContext, key: string, tool: string, callKey: string): Promise<ApprovalDecision & { args: string }> {
  const { store, jobId, fence } = context;
  const refuse = (why: string): never => {
    throw new TypeError(`${tool}: cannot run under approval ${JSON.stringify(key)}: ${why}`);
  };
  if (!key.startsWith(`${jobId}:${context.cell}:`)) refuse("it is not a request of this cell");
  const row = await store.getFuture(key);
  const request = row ? requestOf({ key, ...(row.data as Record<string, unknown>) }) : undefined;
  if (!row || row.jobId !== jobId || row.kind !== "approval" || !request) return refuse("no such request");
  if (request.tool !== tool || request.resume !== "call") refuse(`it is a request for ${request.tool}`);
  const decision = decisionOf(row);
  if (!decision?.approved) refuse(decision ? "it was denied" : "it is not decided yet");
  const guard = await store.getFuture(guardKey(key));
  const usedBy = guard && typeof guard.data === "object" && guard.data !== null ? (guard.data as { callKey?: unknown }).callKey : undefined;
  if (guard && usedBy !== callKey) refuse("it was used already (an approved call runs once)");
  if (!guard) {
    await store.createFutures(jobId, fence, [{ key: guardKey(key), jobId, kind: "approval", wakeAt: null, data: { run: key, callKey } }]);
    // Settled at once: a guard is never a request anyone waits on (pendingApprovals skips it either way).
    await store.settleFuture(guardKey(key), { state: "resolved", value: { callKey }, door: "decision" });
  }
  return { requestId: key, approved: true, by: decision!.by, decidedAt: decision!.decidedAt, ...(decision!.note === undefined ? {} : { note: decision!.note }), args: request.args };
}

/** True for the guard row of an approval (not a request). */
export function isApprovalGuard(row: FutureRow): boolean {
  return typeof row.data === "object" && row.data !== null && !Array.isArray(row.data) && typeof row.data.run === "string";
}
