/**
 * @module
 * One tool call with its record: prepares and runs the call (sync or async) and reports what happened —
 * arguments, result or error, timing — so every call lands in the job history, from either route.
 */
import { prepareCall, runPreparedCall } from "./invoke-tool.ts";
import { llmRepr } from "./llm-repr.ts";
import type { Tool, ToolContext } from "./tool.ts";

/** The durable record of one tool call. */
export interface ToolCallRecord {
  name: string;
  /** `code` for a call from agent code, `formal` for a provider tool call. */
  origin: "code" | "formal";
  /** The model's tool-call id, for formal calls. */
  callId?: string;
  /** The arguments, formatted for reading. */
  args: string;
  /** The result formatted for the model (`""` for `undefined`/`null`), when the call succeeded. */
  result?: string;
  /** `<ErrorName>: <message>`, when the call failed. */
  error?: string;
  /** Wall time of the call. */
  durationMs: number;
}

/** Formats a tool result for the model: nothing for `undefined` and `null`. */
export function formatToolResult(value: unknown): string {
  return value === undefined || value === null ? "" : llmRepr(value, { rawStrings: true });
}

/** `<ErrorName>: <message>` for anything thrown. */
export function formatError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Error: ${llmRepr(error)}`;
}

/** Options of {@link callTool}. */
export interface CallToolOptions {
  origin: "code" | "formal";
  callId?: string;
  ctx: ToolContext;
  /** Receives the record when the call has ended. */
  record(record: ToolCallRecord): void;
}

/** Calls `tool` with positional or named arguments; rethrows its error after recording it. */
export function callTool(tool: Tool, args: readonly unknown[] | Record<string, unknown>, options: CallToolOptions): unknown {
  const started = performance.now();
  let shown: unknown = args;
  const finish = (outcome: { result?: unknown; error?: unknown }) => {
    options.record({
      name: tool.name,
      origin: options.origin,
      ...(options.callId === undefined ? {} : { callId: options.callId }),
      args: llmRepr(shown, { maxDepth: 2, maxItems: 10 }),
      ...("error" in outcome ? { error: formatError(outcome.error) } : { result: formatToolResult(outcome.result) }),
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
  };
  let result: unknown;
  try {
    const call = prepareCall(tool, args);
    shown = call.args;
    result = runPreparedCall(call, options.ctx);
  } catch (error) {
    finish({ error });
    throw error;
  }
  if (result && typeof (result as PromiseLike<unknown>).then === "function") {
    return Promise.resolve(result).then(
      (value) => {
        finish({ result: value });
        return value;
      },
      (error: unknown) => {
        finish({ error });
        throw error;
      },
    );
  }
  finish({ result });
  return result;
}
