/**
 * @module
 * A trace context as text, to be stored with a job and picked up by whoever steps it later — in another
 * process, after a restart: the W3C Trace Context `traceparent` (and `tracestate`) of the span that was
 * current when the job was submitted. Written and read here rather than through the application's
 * propagator, so the link survives whatever propagator (or none) the stepping process has.
 */
import { createTraceState, isSpanContextValid, ROOT_CONTEXT, trace, type Context } from "@opentelemetry/api";

/** A stored trace context (W3C Trace Context headers). */
export interface TraceCarrier {
  /** `00-<trace id>-<span id>-<flags>`. */
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The carrier of the span current in `spanContext`, or `undefined` when there is none (no SDK, no span). */
export function traceCarrierOf(spanContext: Context): TraceCarrier | undefined {
  const current = trace.getSpanContext(spanContext);
  if (!current || !isSpanContextValid(current)) return undefined;
  const flags = (current.traceFlags & 0xff).toString(16).padStart(2, "0");
  const state = current.traceState?.serialize();
  return { traceparent: `00-${current.traceId}-${current.spanId}-${flags}`, ...(state ? { tracestate: state } : {}) };
}

/**
 * A context whose (remote) parent is the carrier's span. A missing or malformed carrier gives `base`
 * unchanged: a trace link is worth losing, a job is not.
 */
export function contextFromCarrier(carrier: TraceCarrier | undefined, base: Context = ROOT_CONTEXT): Context {
  const match = carrier && typeof carrier.traceparent === "string" ? TRACEPARENT.exec(carrier.traceparent) : null;
  if (!match) return base;
  const spanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
    ...(typeof carrier!.tracestate === "string" && carrier!.tracestate ? { traceState: createTraceState(carrier!.tracestate) } : {}),
  };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(base, spanContext) : base;
}
