import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTraceState, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { contextFromCarrier, traceCarrierOf } from "./trace-carrier.ts";

const spanContext = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: TraceFlags.SAMPLED };

describe("trace carriers", () => {
  it("write the current span as a W3C traceparent and read it back as a remote parent", () => {
    const current = trace.setSpanContext(ROOT_CONTEXT, { ...spanContext, traceState: createTraceState("vendor=value") });
    const carrier = traceCarrierOf(current);
    assert.deepEqual(carrier, { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "vendor=value" });
    const read = trace.getSpanContext(contextFromCarrier(carrier));
    assert.deepEqual({ ...read, traceState: read?.traceState?.serialize() }, { ...spanContext, isRemote: true, traceState: "vendor=value" });
  });

  it("give nothing without a valid span, and the base context for a malformed carrier", () => {
    assert.equal(traceCarrierOf(ROOT_CONTEXT), undefined);
    assert.equal(traceCarrierOf(trace.setSpanContext(ROOT_CONTEXT, { ...spanContext, traceId: "0".repeat(32) })), undefined);
    for (const traceparent of ["", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"]) {
      assert.equal(contextFromCarrier({ traceparent }), ROOT_CONTEXT, traceparent);
    }
    assert.equal(contextFromCarrier(undefined), ROOT_CONTEXT);
    assert.equal(contextFromCarrier({ traceparent: 7 } as never), ROOT_CONTEXT);
  });
});
