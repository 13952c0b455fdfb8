/**
 * @module
 * The spans STATEK opens and their attributes, in one place: a job step (`statek.step`), a model call
 * (`chat <model>`, OpenTelemetry GenAI semantic conventions), a cell (`statek.cell`) and a tool call
 * (`execute_tool <name>`, GenAI conventions). Callers pass plain values; this layer knows no STATEK types.
 */
import { SpanKind, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { startSpan, type StartedSpan } from "./tracer.ts";

/** Span names that are not derived from a model or tool name. */
export const SPAN_NAMES = Object.freeze({ step: "statek.step", cell: "statek.cell" });

/** The attributes of a step span, before it runs. */
export function stepAttributes(job: { id: string; role: string; turns: number; status: string }): Attributes {
  return { "statek.job.id": job.id, "statek.job.role": job.role, "statek.job.turns": job.turns, "statek.job.status_before": job.status };
}

/**
 * `gen_ai.system` / `gen_ai.provider.name` from an AI SDK provider string: its first segment (`openai.responses`
 * → `openai`), the name the conventions use.
 */
export function genAiSystem(provider: string): string {
  return provider.split(".", 1)[0] || provider;
}

/** Starts the span of one model call attempt. */
export function startModelSpan(parent: Context | undefined, model: { provider: string; modelId: string }, attempt: number): StartedSpan {
  const system = genAiSystem(model.provider);
  return startSpan(`chat ${model.modelId}`, {
    ...(parent ? { parent } : {}),
    kind: SpanKind.CLIENT,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.system": system,
      "gen_ai.provider.name": system,
      "gen_ai.request.model": model.modelId,
      "statek.model.attempt": attempt,
    },
  });
}

/** What a model call's span records of its reply. */
export interface ModelSpanReply {
  /** `provider/modelId` of the model that answered. */
  modelName: string;
  finishReason: string;
  usage: { inputTokens: number | null; outputTokens: number | null; cachedInputTokens?: number | null };
}

/** Records a reply on a model span: response model, token usage (counts the provider reported), finish reason. */
export function recordModelReply(span: Span, reply: ModelSpanReply): void {
  if (!span.isRecording()) return;
  const slash = reply.modelName.indexOf("/");
  span.setAttribute("gen_ai.response.model", slash >= 0 ? reply.modelName.slice(slash + 1) : reply.modelName);
  span.setAttribute("gen_ai.response.finish_reasons", [reply.finishReason]);
  if (typeof reply.usage.inputTokens === "number") span.setAttribute("gen_ai.usage.input_tokens", reply.usage.inputTokens);
  if (typeof reply.usage.outputTokens === "number") span.setAttribute("gen_ai.usage.output_tokens", reply.usage.outputTokens);
  if (typeof reply.usage.cachedInputTokens === "number") span.setAttribute("gen_ai.usage.cache_read.input_tokens", reply.usage.cachedInputTokens);
}

/** Starts the span of one cell (a response's code, a `ts_cli` call, a warmup block). */
export function startCellSpan(parent: Context | undefined, cell: { number: number; part: string }): StartedSpan {
  return startSpan(SPAN_NAMES.cell, { ...(parent ? { parent } : {}), attributes: { "statek.cell.number": cell.number, "statek.cell.part": cell.part } });
}

/** Starts the span of one tool call. */
export function startToolSpan(parent: Context | undefined, call: { name: string; origin: string; callId?: string }): StartedSpan {
  return startSpan(`execute_tool ${call.name}`, {
    ...(parent ? { parent } : {}),
    kind: SpanKind.INTERNAL,
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": call.name,
      "statek.tool.origin": call.origin,
      ...(call.callId === undefined ? {} : { "gen_ai.tool.call.id": call.callId }),
    },
  });
}
