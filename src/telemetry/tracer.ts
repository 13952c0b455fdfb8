/**
 * @module
 * STATEK's spans, through `@opentelemetry/api` only. Without an OpenTelemetry SDK installed by
 * the application, the API hands out non-recording spans and every call here costs next to nothing; with one,
 * a job's steps, model calls, cells and tool calls appear under the tracer named {@link TRACER_NAME}.
 *
 * Parents are passed explicitly (a step's span context goes down to its model call, cells and tool calls), so
 * the tree is right even when the application registered no context manager; the span is also made active
 * while its work runs, so spans the application's own code opens (in a tool's `run`) nest under it when one is.
 */
import { context, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanKind, type Tracer } from "@opentelemetry/api";
import { errorText } from "../errors/error-text.ts";
import { currentRegistries } from "../registries/registries.ts";

/** The instrumentation scope STATEK's spans are created under. */
export const TRACER_NAME = "statek";

/**
 * The tracer of the running `Statek` (`Statek.open({ tracer })`), else the global tracer provider's (a no-op
 * one until the application installs an SDK; the API's proxy tracer finds a provider registered later).
 */
export function statekTracer(): Tracer {
  return currentRegistries().tracer ?? trace.getTracer(TRACER_NAME);
}

/** How a span starts: its attributes, its parent (default: the active context) and its kind. */
export interface SpanStart {
  attributes?: Attributes;
  parent?: Context;
  kind?: SpanKind;
}

/** A started span with the context that has it as the current span (the parent of spans under it). */
export interface StartedSpan {
  span: Span;
  context: Context;
}

/** Starts a span; the caller ends it (with {@link endSpan}). */
export function startSpan(name: string, start: SpanStart = {}): StartedSpan {
  const parent = start.parent ?? context.active();
  const span = statekTracer().startSpan(name, { ...(start.attributes ? { attributes: start.attributes } : {}), ...(start.kind === undefined ? {} : { kind: start.kind }) }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * Marks `span` failed: status `ERROR` with `<ErrorName>: <message>`, the `error.type` attribute, and an
 * exception event for a thrown `Error`.
 */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const type = error instanceof Error ? error.name : typeof error === "string" ? error.split(":", 1)[0]! : "Error";
  const message = errorText(error);
  if (error instanceof Error) span.recordException(error);
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** Ends `span`, failed with `error` when one is given. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) failSpan(span, error);
  span.end();
}

/**
 * Runs `work` in a new span that is active while it runs; a rejection marks the span failed. The span ends
 * when `work` settles.
 */
export async function inSpan<T>(name: string, start: SpanStart, work: (span: Span, spanContext: Context) => Promise<T>): Promise<T> {
  const started = startSpan(name, start);
  try {
    const result = await context.with(started.context, () => work(started.span, started.context));
    started.span.end();
    return result;
  } catch (error) {
    endSpan(started.span, error);
    throw error;
  }
}
