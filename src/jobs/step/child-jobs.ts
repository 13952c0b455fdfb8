/**
 * @module
 * Child jobs: what `ctx.startJob(agentOrRole, { vars, params, message })` prepares in a
 * tool of a running job, and how a child's end reaches its parent. The child's id derives from the call's
 * idempotency key, so the call made again (a replay, an idempotent call in doubt) names the same child; the
 * parent's cell creates it once its journal records the call (`durable/child-waits.ts`). When the child ends
 * — `DONE`, `FAILED`, `CANCELLED` — the parent's future of kind `child` is settled: its exit value, or
 * `ChildJobFailed`; a parent suspended on it wakes, and its history gets a `child-ended` record.
 */
import { createHash } from "node:crypto";
import { childOutcomeOf, childSettlement } from "../../durable/child-waits.ts";
import { outcomeOf } from "../../durable/job-futures.ts";
import type { FutureSettlement, JobRow, JsonValue } from "../../store/store.ts";
import type { FutureSignals } from "../../durable/future-signals.ts";
import type { StepChanges } from "./step-changes.ts";
import { toReadableJson } from "../../tools/readable-json.ts";
import type { ChildJobStart, ChildJobStarter, StartJobOptions } from "../../tools/child-job.ts";
import { kindOf } from "../../tools/with-article.ts";
import { decodeValue, loadReferences } from "../../workspace/decode-variables.ts";
import { Agent } from "../../agents/agent.ts";
import { newJobRows } from "../operate/new-job.ts";
import type { StepEnvironment } from "./step-environment.ts";
import { withStoreRetries } from "../../store/store-retries.ts";

/** A child's job id: a UUID (version 8, name-based) of the call's key, the same for every attempt at the call. */
export function childJobId(key: string): string {
  const hex = createHash("sha256").update(`statek.child:${key}`).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The scope a job's variables may refer to: the process's bindings, the agent's context and tools. */
function scopeOf(env: StepEnvironment, agent: Agent) {
  const bindings = new Map(env.bindings);
  for (const [name, value] of Object.entries(agent.context)) bindings.set(name, value);
  return { bindings, tools: agent.registry.all, exposed: env.exposed };
}

const START_OPTIONS = new Set(["vars", "params", "message", "locale"]);

/**
 * What `ctx.startJob` does in job `parentId`'s workspace: checks and prepares the child (nothing is written yet).
 * The child inherits what `inherited` holds (the parent's locale) unless the call says otherwise.
 */
export function childStarter(env: StepEnvironment, parentId: string, inherited: { locale?: string } = {}): ChildJobStarter {
  return (agentOrRole, options, key): ChildJobStart => {
    const call = "ctx.startJob";
    let agent: Agent;
    if (agentOrRole instanceof Agent) {
      env.register?.(agentOrRole);
      // The agent as this process runs it (its definition files applied), when it is registered.
      agent = env.register ? env.agentFor(agentOrRole.role) : agentOrRole;
    } else if (typeof agentOrRole === "string" && agentOrRole.trim()) {
      agent = env.agentFor(agentOrRole);
    } else {
      throw new TypeError(`${call}: expected an Agent or the role of a registered agent, got ${kindOf(agentOrRole)}`);
    }
    const given: StartJobOptions = options ?? {};
    if (typeof given !== "object" || given === null) throw new TypeError(`${call}: options must be an object such as { vars, params, message }`);
    const unknown = Object.keys(given).filter((name) => !START_OPTIONS.has(name));
    if (unknown.length) throw new TypeError(`${call}: unknown option ${unknown.map((name) => JSON.stringify(name)).join(", ")} (expected vars, params, message, locale)`);
    if (given.message !== undefined && typeof given.message !== "string") throw new TypeError(`${call}: message must be a string`);
    const id = childJobId(key);
    const locale = given.locale ?? inherited.locale;
    const rows = newJobRows(agent, { ...given, ...(locale === undefined ? {} : { locale }) }, scopeOf(env, agent), { id, parentId, call });
    const spec = { params: rows.job.params, metadata: rows.job.metadata, state: rows.job.state, variables: rows.variables, history: rows.history };
    return Object.freeze({
      kind: "statek.child" as const, key: id, role: agent.role, spec,
      // How the call's record shows it.
      [Symbol.for("statek.llmRepr")]: () => `child job ${id} (${agent.role})`,
    });
  };
}

/**
 * The settlement of the parent's wait that the final commit of child `row` makes with its changes (`JobCommit.
 * settleFutures`): the child's end and its parent's wake-up land in one transaction, so a parent never waits for
 * a child that has ended. `undefined` for a job without a parent, or one that does not end with this commit.
 */
export async function parentSettlement(
  env: Pick<StepEnvironment, "bindings" | "exposed"> & { agentFor?: StepEnvironment["agentFor"] }, row: JobRow, changes: StepChanges,
): Promise<{ key: string; settlement: FutureSettlement } | undefined> {
  if (!row.parentId || !["DONE", "FAILED", "CANCELLED"].includes(changes.status)) return undefined;
  const exitStatus = changes.job.exitStatus !== undefined ? changes.job.exitStatus : row.exitStatus;
  const ended: JobRow = { ...row, status: changes.status, error: changes.job.error !== undefined ? changes.job.error : row.error, exitStatus };
  const exitValue = ended.status === "DONE" && exitStatus !== null ? await readableExit(env, ended) : null;
  return { key: row.id, settlement: { ...childSettlement(ended, exitValue), door: "child-end" } };
}

/** Tells cells of this process that wait for child `key` how it ended, and this process's workers that its parent may run. */
export function announceChildEnd(signals: FutureSignals, parentId: string, key: string, settlement: FutureSettlement): void {
  const outcome = childOutcomeOf(settlement);
  if (outcome) signals.emit(key, outcome);
  signals.wake(parentId);
}

/**
 * Tells `child`'s parent that it ended: settles the parent's future (first writer wins, so telling twice is
 * harmless). Nothing happens for a job without a parent or one that has not ended. A parent that finds its
 * child ended without telling it (an ending committed before the two were one transaction) calls this.
 */
export async function settleParentWait(env: Pick<StepEnvironment, "store" | "signals" | "bindings" | "exposed"> & { agentFor?: StepEnvironment["agentFor"] }, child: JobRow): Promise<void> {
  if (!child.parentId || !["DONE", "FAILED", "CANCELLED"].includes(child.status)) return;
  let exitValue: JsonValue = null;
  if (child.status === "DONE" && child.exitStatus !== null) exitValue = await readableExit(env, child);
  const settlement = childSettlement(child, exitValue);
  const { store, signals } = env;
  const result = await withStoreRetries(() => store.settleFuture(child.id, { ...settlement, door: "child-end" }));
  const outcome = outcomeOf(result.future);
  if (result.settled && outcome) signals.emit(child.id, outcome);
}

/** A child's exit value as JSON: plain data as it is, dates as ISO strings, anything else its readable form. */
async function readableExit(env: Pick<StepEnvironment, "bindings" | "exposed"> & { agentFor?: StepEnvironment["agentFor"] }, child: JobRow): Promise<JsonValue> {
  let agent: Agent | undefined;
  try {
    agent = env.agentFor?.(child.role);
  } catch {
    // Decoded against the process's bindings only.
  }
  const bindings = new Map(env.bindings);
  for (const [name, value] of Object.entries(agent?.context ?? {})) bindings.set(name, value);
  const scope = { bindings, tools: agent?.registry.all ?? [], exposed: env.exposed };
  const references = await loadReferences([child.exitStatus!], scope);
  return toReadableJson(decodeValue(child.exitStatus, references));
}
