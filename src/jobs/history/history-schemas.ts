/**
 * @module
 * The shape of each history record kind's data at its current version, as a Zod schema checked against the
 * record types of `history.ts` (each schema is typed by its record, so the two cannot drift apart). Objects are
 * loose: a field this version does not know is kept, never dropped silently.
 */
import { z } from "zod";
import type { ToolCallRecord } from "../../tools/call-tool.ts";
import type { JsonValue } from "../../store/store.ts";
import type {
  ApprovalRecord,
  ChildEndedRecord, DifficultyRecord, ReminderRecord,
  ConsoleRecord, DialogRecord, ErrorHandlerRecord, HistoryKind, HistoryRecordData, ModelAttemptRecord, ModelResponseRecord, PostProcessedRecord,
  JournaledReply, OperatorActionRecord, RecordedProviderOptions, RecordedToolCall, RecordedUsage, StatusRecord, SubmittedRecord, TypeCheckRecord, UserMessageRecord,
  VariablesRecord, WarmupRecord,
} from "./history.ts";
import { OPERATOR_ACTIONS } from "./history.ts";

const json: z.ZodType<JsonValue> = z.json();
const jsonObject: z.ZodType<Record<string, JsonValue>> = z.record(z.string(), json);
const count = z.number().int().nonnegative();
const providerOptions: z.ZodType<RecordedProviderOptions> = z.record(z.string(), jsonObject);

const usage: z.ZodType<RecordedUsage> = z.looseObject({
  inputTokens: z.number().nullable(),
  cachedInputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
});

const toolCall: z.ZodType<RecordedToolCall> = z.looseObject({
  id: z.string(),
  name: z.string(),
  args: jsonObject,
  invalidArguments: z.looseObject({ text: z.string(), error: z.string() }).optional(),
  providerOptions: providerOptions.optional(),
});

const submitted: z.ZodType<SubmittedRecord> = z.looseObject({
  vars: z.array(z.looseObject({ name: z.string(), type: z.string() })),
  params: jsonObject,
  warmup: z.array(z.looseObject({
    code: z.string(),
    hidden: z.boolean().optional(),
    toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string(), args: z.array(json) })).optional(),
    metadata: jsonObject.optional(),
  })).optional(),
  trace: z.looseObject({ traceparent: z.string(), tracestate: z.string().optional() }).optional(),
  memory: z.looseObject({ specifiers: z.array(z.string()), access: z.enum(["read", "write"]) }).optional(),
});

const userMessage: z.ZodType<UserMessageRecord> = z.looseObject({ text: z.string(), inbox: count.optional() });

const reasoning = z.array(z.looseObject({ text: z.string(), providerOptions: providerOptions.optional() }));

const replyParts = z.array(z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("reasoning"), index: count }),
  z.looseObject({ type: z.literal("text"), text: z.string(), providerOptions: providerOptions.optional() }),
  z.looseObject({ type: z.literal("tool-call"), index: count }),
]));

const modelResponse: z.ZodType<ModelResponseRecord> = z.looseObject({
  turn: count,
  text: z.string(),
  code: z.string().nullable(),
  toolCalls: z.array(toolCall),
  reasoning,
  usage,
  cost: z.number().optional(),
  model: z.string(),
  finishReason: z.string().optional(),
  rawFinishReason: z.string().optional(),
  difficulty: z.enum(["L", "M", "H"]).optional(),
  parts: replyParts.optional(),
  unseen: z.array(count).optional(),
});

/**
 * A model reply as a step's journal keeps it from its arrival until the step commits (`jobs/step/journaled-
 * reply.ts`): the reply as the model layer gave it, in its recorded (JSON) form.
 */
export const journaledReplySchema: z.ZodType<JournaledReply> = z.looseObject({
  text: z.string(),
  toolCalls: z.array(toolCall),
  reasoning,
  parts: replyParts.optional(),
  usage,
  finishReason: z.string(),
  rawFinishReason: z.string().optional(),
  modelName: z.string(),
  messagesSeen: count.optional(),
});

const modelAttempt: z.ZodType<ModelAttemptRecord> = z.looseObject({
  turn: count,
  attempt: count,
  error: z.string(),
  retried: z.boolean(),
  timedOut: z.boolean().optional(),
  usage: usage.optional(),
  cost: z.number().optional(),
  text: z.string().optional(),
  durationMs: z.number(),
  model: z.string(),
});

const consoleEntry: z.ZodType<ConsoleRecord> = z.looseObject({
  stream: z.enum(["out", "err", "echo", "error", "notice"]),
  text: z.string(),
});

const toolCallRecord: z.ZodType<ToolCallRecord> = z.looseObject({
  name: z.string(),
  origin: z.enum(["code", "formal"]),
  callId: z.string().optional(),
  args: z.string(),
  result: z.string().optional(),
  error: z.string().optional(),
  durationMs: z.number(),
});

const variables: z.ZodType<VariablesRecord> = z.looseObject({ put: z.array(z.string()), deleted: z.array(z.string()) });

const status: z.ZodType<StatusRecord> = z.looseObject({
  status: z.string(),
  reason: z.string().optional(),
  exitStatus: z.string().optional(),
});

const warmup: z.ZodType<WarmupRecord> = z.looseObject({ block: count, code: z.string(), hidden: z.boolean(), toolCalls: z.array(toolCall).optional() });

const dialog: z.ZodType<DialogRecord> = z.looseObject({ body: z.string(), media: z.string().optional(), error: z.string().optional() });

const postProcessed: z.ZodType<PostProcessedRecord> = z.looseObject({
  processor: z.string(),
  turn: count,
  note: z.string().optional(),
  veto: z.string().optional(),
  draft: z.looseObject({ text: z.string(), toolCalls: z.array(toolCall) }).optional(),
  usage: usage.optional(),
  cost: z.number().optional(),
});

const errorHandler: z.ZodType<ErrorHandlerRecord> = z.looseObject({
  name: z.string(),
  outcome: z.enum(["done", "failed", "missing"]),
  error: z.string().optional(),
  durationMs: z.number(),
});

const operatorAction: z.ZodType<OperatorActionRecord> = z.looseObject({
  action: z.enum(OPERATOR_ACTIONS),
  by: z.string(),
  note: z.string().optional(),
  target: z.string().optional(),
  via: z.string(),
});

const approval: z.ZodType<ApprovalRecord> = z.looseObject({
  requestId: z.string(),
  tool: z.string(),
  args: z.string().optional(),
  summary: z.string().optional(),
  approved: z.boolean(),
  note: z.string().optional(),
  by: z.string(),
  decidedAt: z.number(),
});

const childEnded: z.ZodType<ChildEndedRecord> = z.looseObject({
  childId: z.string(),
  role: z.string(),
  status: z.string(),
  result: z.string().optional(),
  reason: z.string().optional(),
});

const difficulty: z.ZodType<DifficultyRecord> = z.looseObject({ level: z.enum(["L", "M", "H"]), from: z.enum(["L", "M", "H"]).optional() });

const reminder: z.ZodType<ReminderRecord> = z.looseObject({ text: z.string() });

const typeCheck: z.ZodType<TypeCheckRecord> = z.looseObject({
  part: z.string(),
  outcome: z.enum(["refused", "warned", "unchecked"]),
  errors: z.array(z.looseObject({ line: count, column: count, code: count, message: z.string() })),
  more: count.optional(),
  reason: z.string().optional(),
  durationMs: z.number(),
});

/** The current schema of each record kind's data. A new kind needs one here (the type says so). */
export const HISTORY_SCHEMAS: { readonly [K in HistoryKind]: z.ZodType<HistoryRecordData[K]> } = {
  submitted,
  "user-message": userMessage,
  "model-response": modelResponse,
  "model-attempt": modelAttempt,
  console: consoleEntry,
  "tool-call": toolCallRecord,
  variables,
  status,
  warmup,
  dialog,
  "post-processed": postProcessed,
  "error-handler": errorHandler,
  "operator-action": operatorAction,
  approval,
  "child-ended": childEnded,
  difficulty,
  reminder,
  "type-check": typeCheck,
};
