/**
 * @module
 * The kinds of durable history records (DESIGN.md §8.1) and the data each carries. History is append-only;
 * the records after a `model-response` and before the next one are what executing that response produced.
 */
import type { JsonValue } from "../store/store.ts";

/** The job was submitted: its initial variables (with their types, for `{shared_var_names}`) and parameters. */
export interface SubmittedRecord {
  vars: Array<{ name: string; type: string }>;
  params: Record<string, JsonValue>;
  /** The job's warmup blocks (its own, then its agent's), fixed at submit time. */
  warmup?: Array<{ code: string; hidden?: boolean }>;
}

/** A message from the user. */
export interface UserMessageRecord {
  text: string;
}

/** A formal tool call as the model requested it. */
export interface RecordedToolCall {
  id: string;
  name: string;
  args: Record<string, JsonValue>;
}

/** A committed model reply. Committed before it is executed. */
export interface ModelResponseRecord {
  /** 1-based turn number. */
  turn: number;
  /** The reply text exactly as received. */
  text: string;
  /** The code to run (prose kept as comments), or `null` when the reply has none to run. */
  code: string | null;
  toolCalls: RecordedToolCall[];
  /** Reasoning parts, replayed to the same provider. */
  reasoning: Array<{ text: string; providerOptions?: Record<string, Record<string, JsonValue>> }>;
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number };
  /** What the call cost in USD, from the pricing table; absent when the model has no price. */
  cost?: number;
  /** `provider/modelId`. */
  model: string;
}

/** A warmup block about to run (its console entries follow). Hidden blocks are never shown to the model. */
export interface WarmupRecord {
  /** 0-based index of the block. */
  block: number;
  code: string;
  hidden: boolean;
}

/** A user-facing message of a dialog style, as sent to the agent's `onMessage`. */
export interface DialogRecord {
  body: string;
  /** A file the message refers to (`gen/chart.svg`), sent as `onMessage`'s second argument. */
  media?: string;
  /** `<ErrorName>: <message>` when `onMessage` threw. */
  error?: string;
}

/** What a post-processor did to a model reply before it was committed. */
export interface PostProcessedRecord {
  /** The post-processor's name. */
  processor: string;
  /** The turn of the reply it looked at. */
  turn: number;
  /** A note shown to the model after the reply. */
  note?: string;
  /** Set when the reply was vetoed (not committed): the message shown to the model instead. */
  veto?: string;
  /** The reply before the post-processor changed or vetoed it. */
  draft?: { text: string; toolCalls: RecordedToolCall[] };
  /** For a veto: the usage of the vetoed call (it was paid for), and its cost when the model has a price. */
  usage?: ModelResponseRecord["usage"];
  cost?: number;
}

/** One console entry produced while executing a response. */
export interface ConsoleRecord {
  stream: "out" | "err" | "echo" | "error" | "notice";
  text: string;
}

/** Which variables a step wrote and deleted (the values themselves live in the variables table). */
export interface VariablesRecord {
  put: string[];
  deleted: string[];
}

/** A status change, with the reason for `FAILED`. */
export interface StatusRecord {
  status: string;
  reason?: string;
  exitStatus?: string;
}

/** An error handler ran because the job failed (or could not run). */
export interface ErrorHandlerRecord {
  /** The handler's name. */
  name: string;
  /** `done`; `failed` (it threw, or its context could not be read); `missing` (not registered in this process). */
  outcome: "done" | "failed" | "missing";
  /** `<ErrorName>: <message>` for `failed` and `missing`. */
  error?: string;
  durationMs: number;
}

/** Every record kind and its data. */
export interface HistoryRecordData {
  submitted: SubmittedRecord;
  "user-message": UserMessageRecord;
  "model-response": ModelResponseRecord;
  console: ConsoleRecord;
  "tool-call": import("../tools/call-tool.ts").ToolCallRecord;
  variables: VariablesRecord;
  status: StatusRecord;
  warmup: WarmupRecord;
  dialog: DialogRecord;
  "post-processed": PostProcessedRecord;
  "error-handler": ErrorHandlerRecord;
}

/** A history record kind. */
export type HistoryKind = keyof HistoryRecordData;

/** A history record as the job view returns it. */
export type HistoryRecord = {
  [K in HistoryKind]: { seq: number; kind: K; at: number; data: HistoryRecordData[K] };
}[HistoryKind];
