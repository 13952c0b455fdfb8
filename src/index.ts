/**
 * @module
 * STATEK for TypeScript: durable code workspaces for LLM agents. The model writes TypeScript against
 * application objects in scope; the code runs in a sandbox; variables survive steps and restarts; tools are
 * the controlled capabilities. This entry only re-exports.
 */

/** Jobs: open a store, define agents, submit, step and inspect jobs. */
export { Statek } from "./jobs/statek.ts";
export type { StatekOptions, SubmitJobOptions, RunJobOptions } from "./jobs/statek.ts";
export { Agent } from "./jobs/agent.ts";
export type { AgentOptions, HarnessLimits } from "./jobs/agent.ts";
export type { JobView, JobSummary, JobUsage } from "./jobs/job-view.ts";
export type { HistoryRecord, HistoryKind, HistoryRecordData, ModelResponseRecord, ConsoleRecord } from "./jobs/history.ts";
export { CHAT_STYLES } from "./jobs/chat-styles/chat-style.ts";
export type { ChatStyle } from "./jobs/chat-styles/chat-style.ts";

/** Tools: controlled capabilities agent code calls, and how values are shown to the model. */
export { tool, isTool } from "./tools/tool.ts";
export type { Tool, ToolDefinition, ToolContext, ToolParams } from "./tools/tool.ts";
export type { ToolCallRecord } from "./tools/call-tool.ts";
export { llmRepr, OpaqueValue } from "./tools/llm-repr.ts";
export type { LlmReprOptions, LlmFormatter } from "./tools/llm-repr.ts";

/** Models: any AI SDK language model, and a scripted one for tests and demos. */
export { scriptedModel, ScriptedModel } from "./models/scripted-model.ts";
export type { ScriptedTurn, ScriptedRequest, ScriptedModelOptions } from "./models/scripted-model.ts";
export type { LanguageModel } from "./models/language-model.ts";

/** The workspace: executors (`quickjs` is the sandbox; `trusted` is not), limits, and the values a job view may hold. */
export { createQuickJsExecutor } from "./workspace/quickjs/quickjs-executor.ts";
export type { QuickJsExecutorOptions } from "./workspace/quickjs/quickjs-executor.ts";
export { configureSlotPool } from "./workspace/quickjs/quickjs-slot-pool.ts";
export type { SlotPoolOptions } from "./workspace/quickjs/quickjs-slot-pool.ts";
export { configureReadyVms } from "./workspace/quickjs/quickjs-ready-vms.ts";
export { createTrustedExecutor } from "./workspace/trusted/trusted-executor.ts";
export type { TrustedExecutorOptions } from "./workspace/trusted/trusted-executor.ts";
export type { ExecutorChoice } from "./workspace/resolve-executor.ts";
export type { Executor, Vm, VmLimits, HostChannel, CreateVmOptions, RunCellOptions, CellOutcome, CellLimit } from "./workspace/executor.ts";
export type { WorkspaceLimits } from "./workspace/limits.ts";
export { DEFAULT_WORKSPACE_LIMITS } from "./workspace/limits.ts";
export type { ExposeOptions } from "./workspace/membrane/exposed-classes.ts";
export type { Crossing, CrossingOp } from "./workspace/membrane/crossing-journal.ts";
export { StoredDefinition, Tombstone } from "./workspace/stored-values.ts";

/** Stores: the contract and the embedded SQLite store. */
export { JOB_STATUSES } from "./store/store.ts";
export type { Store, JobStatus, JobRow, VariableRow, HistoryRow, JobCommit, JobFilter, JsonValue } from "./store/store.ts";
export { createSqliteStore, SqliteStore } from "./store/sqlite/sqlite-store.ts";
export type { SqliteStoreConfig } from "./store/sqlite/sqlite-config.ts";
export { openStore, DEFAULT_STORE_PATH } from "./store/open-store.ts";

/** Errors. */
export { StatekError } from "./errors/statek-error.ts";
export { ValidationError } from "./errors/validation-error.ts";
export { NoSuchJobError } from "./errors/no-such-job-error.ts";
export { NoSuchAgentError } from "./errors/no-such-agent-error.ts";
export { JobConflictError } from "./errors/job-conflict-error.ts";
export { CorruptRecordError } from "./errors/corrupt-record-error.ts";
export { ScriptExhaustedError } from "./errors/script-exhausted-error.ts";
export { InvalidToolArgumentsError } from "./errors/invalid-tool-arguments-error.ts";
export { UnsupportedModelVersionError } from "./errors/unsupported-model-version-error.ts";
export { ToolNotExposedError } from "./errors/tool-not-exposed-error.ts";
export { ResourceLimitError } from "./errors/resource-limit-error.ts";
export { InvalidWorkspaceLimitError } from "./errors/invalid-workspace-limit-error.ts";
