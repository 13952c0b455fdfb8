/**
 * @module
 * The kinds of durable history records and the data each carries. History is append-only;
 * the records after a `model-response` and before the next one are what executing that response produced.
 */
import type { JsonValue } from "../../store/store.ts";

/** The job was submitted: its initial variables (with their types, for `{shared_var_names}`) and parameters. */
export interface SubmittedRecord {
  vars: Array<{ name: string; type: string }>;
  params: Record<string, JsonValue>;
  /**
   * The job's warmup blocks (its own, then its agent's), fixed at submit time: code, and the formal tool calls
   * (`// statek: as tool`, ids `STATEK-001`, …) and metadata (`// statek: key = value`) of each. Since version 3.
   */
  warmup?: Array<{ code: string; hidden?: boolean; toolCalls?: Array<{ id: string; name: string; args: JsonValue[] }>; metadata?: Record<string, JsonValue> }>;
  /**
   * The trace context current when the job was submitted (W3C `traceparent`/`tracestate`), when the application
   * traces: the job's steps open their spans under it, in whichever process runs them. Since version 2.
   */
  trace?: { traceparent: string; tracestate?: string };
  /** The shared memory the job reads (and, with `write`, writes): its context's specifiers. Since version 3. */
  memory?: { specifiers: string[]; access: "read" | "write" };
}

/** A message from the user. */
export interface UserMessageRecord {
  text: string;
  /** Its number in the job's inbox: the n-th `waitForMessage()` of the job gets message n. */
  inbox?: number;
}

/** Provider metadata of a reply part (item ids, signatures), by provider name; sent back with the part. */
export type RecordedProviderOptions = Record<string, Record<string, JsonValue>>;

/** A formal tool call as the model requested it. */
export interface RecordedToolCall {
  id: string;
  name: string;
  /** The arguments; `{}` when the model's arguments could not be read (`invalidArguments`). */
  args: Record<string, JsonValue>;
  /**
   * Set when the model's arguments were not a JSON object: the text as received and the error. The call is not
   * run; the error is its result.
   */
  invalidArguments?: { text: string; error: string };
  /** Provider metadata of the call (an OpenAI Responses item id, a Gemini thought signature). */
  providerOptions?: RecordedProviderOptions;
}

/**
 * Token counts of one model call as the provider reported them. A count it did not report is `null` (unknown);
 * records written before unknown counts existed hold numbers only.
 */
export interface RecordedUsage {
  inputTokens: number | null;
  /** Input tokens served from the provider's cache (included in `inputTokens`). */
  cachedInputTokens: number | null;
  outputTokens: number | null;
}

/**
 * One part of a reply in the order the provider sent it: a reasoning part or tool call by index into the
 * record's `reasoning` / `toolCalls`, or a text part with its text and metadata.
 */
export type RecordedReplyPart =
  | { type: "reasoning"; index: number }
  | { type: "text"; text: string; providerOptions?: RecordedProviderOptions }
  | { type: "tool-call"; index: number };

/** A committed model reply. Committed before it is executed. */
export interface ModelResponseRecord {
  /** 1-based turn number. */
  turn: number;
  /** The reply text exactly as received. */
  text: string;
  /** The code to run (prose kept as comments), or `null` when the reply has none to run. */
  code: string | null;
  toolCalls: RecordedToolCall[];
  /** Reasoning parts (also inline `<think>` blocks), replayed to the same provider. */
  reasoning: Array<{ text: string; providerOptions?: RecordedProviderOptions }>;
  usage: RecordedUsage;
  /** What the call cost in USD, from the pricing table; absent when the model has no price or the usage is unknown. */
  cost?: number;
  /** `provider/modelId`. */
  model: string;
  /**
   * Why the model stopped: `stop`, `tool-calls`, `length` (cut off by the output token limit: not run),
   * `content-filter` (a refusal or the provider's filter: not run), `other`. Absent in older records.
   */
  finishReason?: string;
  /** The provider's own finish reason (`max_tokens`, `refusal`), when it differs from `finishReason`. */
  rawFinishReason?: string;
  /** The job's difficulty this turn ran at (`L`, `M`, `H`), when the agent's model or prompt depends on it. */
  difficulty?: "L" | "M" | "H";
  /**
   * The reply's parts in the order the provider sent them, kept when a text part carried provider metadata
   * (OpenAI Responses message items, Gemini thought signatures) and the reply was not rewritten: a replay to
   * the same provider sends them back as they came.
   */
  parts?: RecordedReplyPart[];
  /**
   * The `seq`s of user messages pushed while this reply was being made, which the history holds before it: the
   * reply did not see them (its step's commit was rebased over them). The prompt shows them after this reply.
   */
  unseen?: number[];
}

/**
 * A model call attempt that failed (an error, a timeout, a reply that ended early): one record per attempt,
 * before the `model-response` of the attempt that succeeded, or before the job's failure.
 */
export interface ModelAttemptRecord {
  /** The turn the attempt was for. */
  turn: number;
  /** 1-based number of the attempt within the turn. */
  attempt: number;
  /** `<ErrorName>: <message>`. */
  error: string;
  /** Whether another attempt followed. */
  retried: boolean;
  /** Set when the attempt was abandoned at the timeout. */
  timedOut?: boolean;
  /** The usage the provider reported before the attempt ended; absent when it reported none and sent no text. */
  usage?: RecordedUsage;
  /** What the reported usage cost, when it is known and the model has a price. */
  cost?: number;
  /** The reply text that arrived before the attempt ended. */
  text?: string;
  durationMs: number;
  /** `provider/modelId`. */
  model: string;
}

/** A warmup block about to run (its console entries follow). Hidden blocks are never shown to the model. */
export interface WarmupRecord {
  /** 0-based index of the block. */
  block: number;
  code: string;
  hidden: boolean;
  /** The block's formal tool calls (`// statek: as tool`), named as the model sees them; their records follow. */
  toolCalls?: RecordedToolCall[];
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
  usage?: RecordedUsage;
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

/** The operator actions an `operator-action` record names. */
export const OPERATOR_ACTIONS = ["push-message", "resolve-future", "reject-future", "approve", "deny", "cancel", "retry", "fork"] as const;

/**
 * An operator acted on the job from outside (the web UI, its JSON API): who did what. The action's own effect
 * (a user message, a settled future, a status) is recorded by the action itself; this says who asked for it. A
 * fork is recorded on the new job (the original is left as it was).
 */
export interface OperatorActionRecord {
  action: (typeof OPERATOR_ACTIONS)[number];
  /** Who: a token's name, or `local` (a loopback UI without tokens). */
  by: string;
  /** The operator's note (approve/deny, cancel), when one was given. */
  note?: string;
  /** What the action was about: a future's key, an approval's request id, the job and turn a fork was made of. */
  target?: string;
  /** Where it came from, e.g. `web UI`. */
  via: string;
}

/** A human decided one of the job's approval requests (`statek.approve` / `deny`): who, when, which way. */
export interface ApprovalRecord {
  /** The request's id. */
  requestId: string;
  /** The tool whose call was to be approved (`requestApproval` for a plain request). */
  tool: string;
  /** The call's arguments as the approver saw them. */
  args?: string;
  /** What the request said (`requestApproval(summary)`). */
  summary?: string;
  approved: boolean;
  note?: string;
  /** Who decided (`approve(…, { by })`, default `local`). */
  by: string;
  /** Epoch milliseconds. */
  decidedAt: number;
}

/** A model reply in its recorded (JSON) form, as a step's journal keeps it until the step commits. */
export interface JournaledReply {
  text: string;
  toolCalls: RecordedToolCall[];
  reasoning: Array<{ text: string; providerOptions?: RecordedProviderOptions }>;
  parts?: RecordedReplyPart[];
  usage: RecordedUsage;
  finishReason: string;
  rawFinishReason?: string;
  modelName: string;
  /** How many user messages the request that got the reply showed the model. */
  messagesSeen?: number;
}

/** A child job this job started (`ctx.startJob`) ended. */
export interface ChildEndedRecord {
  childId: string;
  role: string;
  /** `DONE`, `FAILED` or `CANCELLED`. */
  status: string;
  /** The child's exit value as the model reads it (when `DONE`). */
  result?: string;
  /** Why it failed or was cancelled. */
  reason?: string;
}

/** The job's difficulty rose: `panic()`, or an example of a harder level was shown. */
export interface DifficultyRecord {
  level: "L" | "M" | "H";
  /** The level before. */
  from?: "L" | "M" | "H";
}

/** A dialog reminder fired: a reply that would have ended the turn got this text instead (shown to the model). */
export interface ReminderRecord {
  text: string;
}

/** One type error of a checked cell (`TypeCheckRecord`), at the cell's own line and column (1-based). */
export interface RecordedTypeError {
  line: number;
  column: number;
  /** The compiler's error code: 2345 for TS2345. */
  code: number;
  message: string;
}

/**
 * A model-written cell was type-checked before it ran and the check found something: its type errors (the cell
 * was `refused` and did not run, or `warned` and ran), or it could not be checked and ran `unchecked`. Cells
 * that type-check leave no record.
 */
export interface TypeCheckRecord {
  /** Which code: `cell` (the reply's own cell) or `ts:<call id>` (a `ts_cli` call). */
  part: string;
  outcome: "refused" | "warned" | "unchecked";
  /** The errors, at most 50 (`more` counts the rest). */
  errors: RecordedTypeError[];
  more?: number;
  /** Why the cell could not be checked (`unchecked`). */
  reason?: string;
  durationMs: number;
}

/** Every record kind and its data. */
export interface HistoryRecordData {
  submitted: SubmittedRecord;
  "user-message": UserMessageRecord;
  "model-response": ModelResponseRecord;
  "model-attempt": ModelAttemptRecord;
  console: ConsoleRecord;
  "tool-call": import("../../tools/call-tool.ts").ToolCallRecord;
  variables: VariablesRecord;
  status: StatusRecord;
  warmup: WarmupRecord;
  dialog: DialogRecord;
  "post-processed": PostProcessedRecord;
  "error-handler": ErrorHandlerRecord;
  "operator-action": OperatorActionRecord;
  approval: ApprovalRecord;
  "child-ended": ChildEndedRecord;
  difficulty: DifficultyRecord;
  reminder: ReminderRecord;
  "type-check": TypeCheckRecord;
}

/** A history record kind. */
export type HistoryKind = keyof HistoryRecordData;

/** A history record as the job view returns it. */
export type HistoryRecord = {
  [K in HistoryKind]: { seq: number; kind: K; at: number; data: HistoryRecordData[K] };
}[HistoryKind];
