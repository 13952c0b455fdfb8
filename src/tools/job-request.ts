/**
 * @module
 * What a framework tool asks of its job besides returning a value: raise the job's difficulty, make a tool,
 * send the user a message, end the job. The tool returns {@link jobRequest}`(result, changes)`; the workspace
 * hands agent code the result and keeps the changes with the call's crossing, so a replayed cell gives the step
 * the same changes without calling the tool again, and the step applies them with its commit.
 */
import { llmRepr } from "./llm-repr.ts";

/** A tool made at run time from one of the job's tools and fixed arguments (`createTool`). */
export interface CreatedToolSpec {
  /** The new tool's name. */
  name: string;
  /** The name of the job's tool it calls. */
  base: string;
  /** What it does, for the model. */
  description: string;
  /** The arguments it calls `base` with, positionally (JSON values). */
  args: unknown[];
}

/** One change a framework tool asks of its job. */
export type JobChange =
  /** The job's difficulty becomes `level` (the step keeps the highest asked for). */
  | { type: "difficulty"; level: "L" | "M" | "H" }
  /** A tool made at run time: in scope from the next cell, and listed in the job's prompt. */
  | { type: "tool"; spec: CreatedToolSpec }
  /** A message to the user (dialog styles): recorded, then sent to the agent's `onMessage` after the commit. */
  | { type: "message"; body: string; media?: string }
  /** The job ends with this status (encoded by the workspace), as `exit(status)` in agent code. */
  | { type: "exit"; status: unknown };

/** A tool's result with the changes it asks of its job. */
export interface JobRequest {
  readonly kind: "statek.job-request";
  readonly result: unknown;
  readonly changes: readonly JobChange[];
}

/** A result for agent code, with changes for the job (see the module comment). */
export function jobRequest(result: unknown, changes: readonly JobChange[]): JobRequest {
  return {
    kind: "statek.job-request",
    result,
    changes: Object.freeze([...changes]),
    // The call's record shows the result agent code gets.
    [Symbol.for("statek.llmRepr")]: () => (result === undefined || result === null ? "" : llmRepr(result, { rawStrings: true })),
  } as JobRequest;
}

/** True for a value made by {@link jobRequest}. */
export function isJobRequest(value: unknown): value is JobRequest {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.job-request";
}

/**
 * The changes `value` holds, checked (they come back from a cell's journal, which is untrusted once stored);
 * anything malformed is left out.
 */
export function decodeJobChanges(value: unknown): JobChange[] {
  if (!Array.isArray(value)) return [];
  const changes: JobChange[] = [];
  for (const item of value) {
    if (typeof item !== "object" || item === null) continue;
    const change = item as Record<string, unknown>;
    if (change.type === "difficulty" && (change.level === "L" || change.level === "M" || change.level === "H")) {
      changes.push({ type: "difficulty", level: change.level });
    } else if (change.type === "tool") {
      const spec = decodeCreatedTool(change.spec);
      if (spec) changes.push({ type: "tool", spec });
    } else if (change.type === "message" && typeof change.body === "string" && (change.media === undefined || typeof change.media === "string")) {
      changes.push({ type: "message", body: change.body, ...(change.media === undefined ? {} : { media: change.media }) });
    } else if (change.type === "exit") {
      changes.push({ type: "exit", status: change.status });
    }
  }
  return changes;
}

/** A created tool's spec as stored (job state, journal), checked; `undefined` when it is not one. */
export function decodeCreatedTool(value: unknown): CreatedToolSpec | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const spec = value as Record<string, unknown>;
  if (typeof spec.name !== "string" || typeof spec.base !== "string" || typeof spec.description !== "string" || !Array.isArray(spec.args)) return undefined;
  return { name: spec.name, base: spec.base, description: spec.description, args: [...spec.args] };
}
