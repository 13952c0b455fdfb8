/**
 * @module
 * One tool call with its record: refuses hidden tools, prepares and runs the call (sync or async), registers
 * the tool's error handler with the result, and reports what happened — arguments, result or error, timing —
 * so every call lands in the job history, from either route (agent code or a formal call from the model).
 */
import { isPromise } from "node:util/types";
import { context as activeContext, type Context } from "@opentelemetry/api";
import { startToolSpan } from "../telemetry/spans.ts";
import { endSpan } from "../telemetry/tracer.ts";
import { DEFER_ERROR_HANDLER, defersRegistration, type ErrorHandler } from "./error-handler.ts";
import { isDurableFuture, type DurableFuture } from "./durable-future.ts";
import { toReadableJson } from "./readable-json.ts";
import { approvalRequest, callNeedsApproval, isApprovalRequest, type ApprovalDecision } from "./approval.ts";
import { ApprovalRequiredError } from "../errors/approval-required-error.ts";
import { prepareCall, runPreparedCall } from "./invoke-tool.ts";
import { llmRepr, type LlmReprOptions } from "./llm-repr.ts";
import type { Tool, ToolContext } from "./tool.ts";
import { errorText } from "../errors/error-text.ts";

/** The durable record of one tool call. */
export interface ToolCallRecord {
  name: string;
  /** `code` for a call from agent code, `formal` for a provider tool call. */
  origin: "code" | "formal";
  /** The model's tool-call id, for formal calls. */
  callId?: string;
  /** The arguments, formatted for reading. */
  args: string;
  /**
   * The result formatted for the model (`""` for `undefined`/`null`), when the call succeeded. For a formal
   * call it starts with what the tool printed; when a formal call failed, it holds only what was printed.
   */
  result?: string;
  /** `<ErrorName>: <message>`, when the call failed. */
  error?: string;
  /** Wall time of the call. */
  durationMs: number;
}

/**
 * Formats a tool result for the model: nothing for `undefined` and `null`; `visible` filters the members of
 * class instances (the workspace passes the exposed classes' member policy).
 */
export function formatToolResult(value: unknown, visible?: LlmReprOptions["visible"]): string {
  return value === undefined || value === null ? "" : llmRepr(value, { rawStrings: true, ...(visible ? { visible } : {}) });
}

/** `<ErrorName>: <message>` for anything thrown. */
export function formatError(error: unknown): string {
  if (error instanceof Error) return errorText(error);
  return `Error: ${llmRepr(error)}`;
}

/** Options of {@link callTool}. */
export interface CallToolOptions {
  origin: "code" | "formal";
  callId?: string;
  ctx: ToolContext;
  /** Receives the record when the call has ended. */
  record(record: ToolCallRecord): void;
  /** Registers the tool's error handler on the job, with the call's result as its context. */
  registerErrorHandler?(handler: ErrorHandler, context: unknown): void;
  /** For formal calls: what the tool printed so far, which becomes the start of its result. */
  printed?(): readonly string[];
  /** Which members of class instances the record may show (the member policy); default: every public one. */
  visible?: LlmReprOptions["visible"];
  /** The human decision this call runs under: a `needsApproval` tool then runs instead of asking again. */
  approved?: ApprovalDecision;
  /** The arguments the approver saw (as a request shows them): a call with other arguments is refused. */
  approvedArgs?: string;
  /**
   * The call may only ask for approval (it is made again after a crash left it in doubt, and nothing ran when it
   * asked): if its arguments need none, it fails with this error instead of running.
   */
  askOnly?: Error;
  /** The trace context the call's span goes under (its cell's or step's). @default the active context */
  trace?: Context;
}

/**
 * Calls `tool` with positional or named arguments; rethrows its error after recording it. Whether the job
 * may call it at all (hidden, allowed set) is the broker's tool access, checked before this.
 */
export function callTool(tool: Tool, args: readonly unknown[] | Record<string, unknown>, options: CallToolOptions): unknown {
  const started = performance.now();
  const traced = startToolSpan(options.trace, { name: tool.name, origin: options.origin, ...(options.callId === undefined ? {} : { callId: options.callId }) });
  let shown: unknown = args;
  const finish = (outcome: { result?: unknown; error?: unknown }) => {
    const printed = options.printed?.() ?? [];
    const record: ToolCallRecord = {
      name: tool.name,
      origin: options.origin,
      ...(options.callId === undefined ? {} : { callId: options.callId }),
      args: llmRepr(shown, { maxDepth: 2, maxItems: 10, ...(options.visible ? { visible: options.visible } : {}) }),
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
    if ("error" in outcome) {
      record.error = formatError(outcome.error);
      if (printed.length) record.result = printed.join("\n");
    } else {
      record.result = [...printed, formatToolResult(outcome.result, options.visible)].filter((text) => text !== "").join("\n");
    }
    options.record(record);
    endSpan(traced.span, "error" in outcome ? outcome.error : undefined);
  };
  const succeed = (value: unknown) => {
    // A formal call cannot wait for a human (`requestApproval` from the model's tool call).
    if (options.origin === "formal" && isApprovalRequest(value)) throw new ApprovalRequiredError({ toolName: tool.name });
    if (isDurableFuture(value)) attachCheck(tool, value, shown);
    registerHandler(tool, value, options);
    finish({ result: value });
    return value;
  };
  let result: unknown;
  try {
    const call = prepareCall(tool, args, { variable: (name) => options.ctx.variable(name), formal: options.origin === "formal" });
    shown = call.args;
    if (options.approved) {
      const shownArgs = approvalRequest(options.ctx, tool.name, call.args).args;
      if (options.approvedArgs !== undefined && shownArgs !== options.approvedArgs) {
        throw new TypeError(`${tool.name}: the arguments differ from the ones approved (${options.approvedArgs}); ask for approval again`);
      }
      const { requestId, approved, by, decidedAt, note } = options.approved;
      const approval = { requestId, approved, by, decidedAt, ...(note === undefined ? {} : { note }) };
      result = activeContext.with(traced.context, () => runPreparedCall(call, { ...options.ctx, approval }));
    } else if (tool.needsApproval !== false && callNeedsApproval(tool.name, tool.needsApproval, call.args, options.ctx)) {
      // The call does not run: the job waits for a human (agent code only: a formal call cannot wait).
      if (options.origin === "formal") throw new ApprovalRequiredError({ toolName: tool.name });
      // Its error handler registers when the approved call runs, not now.
      const request = approvalRequest(options.ctx, tool.name, call.args);
      finish({ result: request });
      return request;
    } else if (options.askOnly) {
      throw options.askOnly;
    } else {
      // The tool's own spans (an HTTP client's) nest under the call's, where the application has a context manager.
      result = activeContext.with(traced.context, () => runPreparedCall(call, options.ctx));
    }
  } catch (error) {
    finish({ error });
    throw error;
  }
  // Only a real promise is awaited: another value's `then` may come from agent code (a tool that returns its
  // argument) and would never call back.
  if (isPromise(result)) {
    return result.then(succeed, (error: unknown) => {
      finish({ error });
      throw error;
    });
  }
  return succeed(result);
}

/**
 * A future returned by a tool with `check(args)` is a checked one: it keeps the tool's name and the call's
 * arguments (as JSON: a worker in another process checks it with them).
 */
function attachCheck(tool: Tool, future: DurableFuture, args: unknown): void {
  if (!tool.check) {
    if (future.everyMs !== undefined) throw new TypeError(`${tool.name}: ctx.future(key, { everyMs }) makes a checked future, which needs the tool's check(args)`);
    return;
  }
  const json = toReadableJson(args);
  future.check = { tool: tool.name, args: typeof json === "object" && json !== null && !Array.isArray(json) ? json : {} };
}

// "Just before the result is returned": the handler is on the job by the time agent code sees the result.
function registerHandler(tool: Tool, value: unknown, options: CallToolOptions): void {
  const handler = tool.errorHandler;
  const register = options.registerErrorHandler;
  if (!handler || !register) return;
  // A durable future may resolve in another process: the handler goes with it, by name.
  if (isDurableFuture(value)) value.errorHandler = handler.name;
  else if (defersRegistration(value)) value[DEFER_ERROR_HANDLER]((resolved) => register(handler, resolved));
  else register(handler, value);
}
