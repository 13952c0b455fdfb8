/**
 * @module
 * STATEK for TypeScript: durable code workspaces for LLM agents. The model writes TypeScript against
 * application objects in scope; the code runs in a sandbox; variables survive steps and restarts; tools are
 * the controlled capabilities. This entry only re-exports.
 */

/** Jobs: open a store, define agents, submit, step and inspect jobs. */
export { Statek } from "./jobs/statek.ts";
export type { StatekOptions, SubmitJobOptions, RunJobOptions, StepOptions } from "./jobs/statek.ts";
export { Agent } from "./jobs/agent.ts";
export type { AgentOptions, OnMessage, PromptFileAgentOptions } from "./jobs/agent.ts";
export type { OnModelText, ModelTextEvent, JobEvent } from "./jobs/job-events.ts";
export type { JobView, JobSummary, JobUsage } from "./jobs/job-view.ts";
export type {
  HistoryRecord, HistoryKind, HistoryRecordData, ModelResponseRecord, ConsoleRecord, SubmittedRecord, UserMessageRecord,
  RecordedToolCall, VariablesRecord, StatusRecord, WarmupRecord, DialogRecord, PostProcessedRecord, ErrorHandlerRecord,
  ModelAttemptRecord, RecordedUsage, RecordedProviderOptions, RecordedReplyPart,
} from "./jobs/history.ts";

/** Chat styles, warmup, harness limits and post-processors. */
export { CHAT_STYLES } from "./jobs/chat-styles/chat-style.ts";
export type { ChatStyle } from "./jobs/chat-styles/chat-style.ts";
export { TS_CLI, tsCliTool } from "./jobs/ts-cli.ts";
export { DEFAULT_HARNESS_LIMITS } from "./jobs/harness.ts";
export type { HarnessLimits } from "./jobs/harness.ts";
export type { WarmupBlock, WarmupSource } from "./jobs/warmup.ts";
export { FinalCheck, FINAL_CHECK_MESSAGE } from "./jobs/final-check.ts";
export type { FinalCheckOptions } from "./jobs/final-check.ts";
export type { PostProcessor, PostProcessorContext, PostProcessorOutcome, ReplyDraft } from "./jobs/post-processor.ts";

/** Tools: controlled capabilities agent code calls, and how values are shown to the model. */
export { tool, isTool, RESERVED_PARAMETER_NAMES } from "./tools/tool.ts";
export type { Tool, ToolDefinition, ToolContext, ToolParams, ToolAgent } from "./tools/tool.ts";
export type { ToolCallRecord } from "./tools/call-tool.ts";
export { errorHandler, isErrorHandler, DEFER_ERROR_HANDLER } from "./tools/error-handler.ts";
export type { ErrorHandler, ErrorHandlerDefinition, DeferredRegistration } from "./tools/error-handler.ts";
export { registerEnum } from "./tools/enum-members.ts";
export { parseIsoDate } from "./tools/iso-date.ts";
export { ToolRegistry, selectTools, TOOL_SCOPES } from "./tools/tool-registry.ts";
export type { ToolScope, SelectToolsOptions, ToolRegistryOptions } from "./tools/tool-registry.ts";
export { parseLlmToolsScope, selectScopedTools } from "./tools/llm-tools-scope.ts";
export type { LlmToolsScope } from "./tools/llm-tools-scope.ts";
export { CHAT_STYLE_NAMES, DEFAULT_CHAT_STYLE, matchesChatStyle } from "./tools/chat-style.ts";
export type { ChatStyleName } from "./tools/chat-style.ts";
export { llmRepr, OpaqueValue, registerFormatter } from "./tools/llm-repr.ts";
export type { LlmReprOptions, LlmFormatter } from "./tools/llm-repr.ts";

/** Documentation for the model: classes and functions, ACL rules, variants, declarations, payloads. */
export { describe, docsOf } from "./docs/class-docs.ts";
export type { ClassDocs, MemberDocs, FunctionDocs } from "./docs/class-docs.ts";
export { briefDocs, fullDocs } from "./docs/value-docs.ts";
export type { DocsOptions } from "./docs/value-docs.ts";
export { parseAcl, hasAccess, GRANT_ALL, DENY_ALL } from "./docs/acl.ts";
export type { Acl, AclRule } from "./docs/acl.ts";
export { parseVariants, textVariant } from "./docs/variants.ts";
export { briefLine, toolEntry, toolDeclaration } from "./docs/tool-docs.ts";
export { renderPrompt } from "./docs/render-prompt.ts";
export type { PromptContext } from "./docs/render-prompt.ts";
export { toolPayload, payloadProfileFor } from "./docs/tool-payload.ts";
export type { ToolPayload, PayloadProfile } from "./docs/tool-payload.ts";
export { requestTools } from "./docs/request-tools.ts";
export { briefTool, docstrTool } from "./docs/system-tools.ts";
export { SYSTEM_TOOLS } from "./jobs/system-tools.ts";

/** Models: any AI SDK language model, and a scripted one for tests and demos. */
export { scriptedModel, ScriptedModel } from "./models/scripted-model.ts";
export type { ScriptedTurn, ScriptedRequest, ScriptedModelOptions, ScriptedFinishReason } from "./models/scripted-model.ts";
export type { LanguageModel } from "./models/language-model.ts";
export { createModelRegistry } from "./models/model-registry.ts";
export type { ModelRegistry, ModelRegistryOptions } from "./models/model-registry.ts";
export type { ModelProvider, ProviderSettings } from "./models/model-provider.ts";
export { BUILT_IN_PROVIDERS } from "./models/built-in-providers.ts";
export { parseModelString } from "./models/model-string.ts";
export type { ModelString } from "./models/model-string.ts";
export type { ModelOptions } from "./models/model-settings.ts";
export { DEFAULT_RETRY_POLICY } from "./models/retry-policy.ts";
export type { RetryPolicy } from "./models/retry-policy.ts";
export { BUILT_IN_PRICING, costOf, findPrice } from "./models/pricing.ts";
export type { ModelPrice, PricingTable } from "./models/pricing.ts";
export { loadPricingFile } from "./models/load-pricing.ts";
export { formatCost } from "./models/format-cost.ts";

/** The workspace: executors (`quickjs` is the sandbox; `trusted` is not), limits, and the values a job view may hold. */
export { createQuickJsExecutor } from "./workspace/quickjs/quickjs-executor.ts";
export type { QuickJsExecutorOptions } from "./workspace/quickjs/quickjs-executor.ts";
export { configureSlotPool, configureReadyVms, configureSandboxPool, type SandboxPoolOptions } from "./workspace/sandbox/sandbox-pool.ts";
export type { SlotPoolOptions } from "./workspace/quickjs/quickjs-slot-pool.ts";
export { createTrustedExecutor } from "./workspace/trusted/trusted-executor.ts";
export type { TrustedExecutorOptions } from "./workspace/trusted/trusted-executor.ts";
export type { ExecutorChoice } from "./workspace/resolve-executor.ts";
export type { Executor, Vm, VmLimits, VmHost, IdleAnswer, Delivery, EntryCall, GuestError, CreateVmOptions, RunCellOptions, CellOutcome, CellLimit } from "./workspace/executor.ts";
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
export { StoreError } from "./errors/store-error.ts";
export { ScriptExhaustedError } from "./errors/script-exhausted-error.ts";
export { InvalidToolArgumentsError } from "./errors/invalid-tool-arguments-error.ts";
export { NameError } from "./errors/name-error.ts";
export type { NameProblem } from "./errors/name-error.ts";
export { InvalidToolsScopeError } from "./errors/invalid-tools-scope-error.ts";
export { JobFailedError } from "./errors/job-failed-error.ts";
export { UnsupportedModelVersionError } from "./errors/unsupported-model-version-error.ts";
export { InvalidModelStringError } from "./errors/invalid-model-string-error.ts";
export { NoSuchProviderError } from "./errors/no-such-provider-error.ts";
export { LoadProviderPackageError } from "./errors/load-provider-package-error.ts";
export { LoadApiKeyError } from "./errors/load-api-key-error.ts";
export { ModelCallError } from "./errors/model-call-error.ts";
export { ModelProviderError } from "./errors/model-provider-error.ts";
export { IncompleteReplyError } from "./errors/incomplete-reply-error.ts";
export { InvalidPromptFileError } from "./errors/invalid-prompt-file-error.ts";
export { InvalidPricingError } from "./errors/invalid-pricing-error.ts";
export { JobFinishedError } from "./errors/job-finished-error.ts";
export { ResourceLimitError } from "./errors/resource-limit-error.ts";
export { InvalidWorkspaceLimitError } from "./errors/invalid-workspace-limit-error.ts";
