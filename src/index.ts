/**
 * @module
 * STATEK for TypeScript: durable code workspaces for LLM agents. The model writes TypeScript against
 * application objects in scope; the code runs in a sandbox; variables survive steps and restarts; tools are
 * the controlled capabilities. This entry only re-exports what applications call. Helpers are on subpaths:
 * `statek/models` (model strings, providers, pricing, retries), `statek/format` (cost, usage, times, errors and
 * a job's timeline as the CLI and the UI show them), `statek/agents` (the system tools, tool and error
 * handler checks); contracts for other implementations: `statek/store` (stores and their conformance suite),
 * `statek/executor` (executors and theirs), and `statek/testing` (`scriptedModel` and test helpers).
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "./runtime/check-node-version.ts";

/** Jobs: open a store, define agents, submit, step and inspect jobs. */
export { Statek } from "./jobs/statek.ts";
export type { StatekOptions, SubmitJobOptions, RunJobOptions, StepOptions, ForkJobOptions } from "./jobs/statek.ts";
export { Agent } from "./agents/agent.ts";
export type { AgentOptions, AgentBreakerOptions, OnMessage, PromptFileAgentOptions } from "./agents/agent.ts";
export type {
  OnModelText, ModelTextEvent, JobEvent, RecordedJobEvent, LiveJobEvent, RecordedEventBase, StatusChangeEvent, StepEndEvent, ConsoleEvent,
  FutureSettledEvent, OtherJobEvent, AgentBreakerEvent,
} from "./jobs/events/job-events.ts";
export type { JobEventFilter, JobEventStream } from "./jobs/events/job-event-stream.ts";
export type { JobSettings, JobMetadata, ToolsSchema } from "./agents/job-settings.ts";
export type { JobView, JobSummary, JobUsage } from "./jobs/history/job-view.ts";
export type {
  HistoryRecord, HistoryKind, HistoryRecordData, ModelResponseRecord, ConsoleRecord, SubmittedRecord, UserMessageRecord,
  RecordedToolCall, VariablesRecord, StatusRecord, WarmupRecord, DialogRecord, PostProcessedRecord, ErrorHandlerRecord,
  ModelAttemptRecord, RecordedUsage, RecordedProviderOptions, RecordedReplyPart, ApprovalRecord, ChildEndedRecord, DifficultyRecord, ReminderRecord,
  TypeCheckRecord, RecordedTypeError,
} from "./jobs/history/history.ts";
export type { ApprovalDecisionOptions, PendingApproval, PendingApprovalFilter } from "./jobs/operate/approvals.ts";
export type { StatekWorker, WorkerOptions, WorkerStopOptions, WorkerActivity, WorkerStats, AgentLoop, AgentWorkerStats } from "./jobs/statek-worker.ts";
export type { AgentHealth } from "./jobs/loops/agent-health.ts";
export type { AgentOverview } from "./jobs/operate/agents-overview.ts";
export { JOB_STATUSES } from "./store/store.ts";
export type { JobStatus, JobFilter, JsonValue, ForkOrigin } from "./store/store.ts";

/** Typed cells: each model-written cell is type-checked before it runs (docs/typed-cells.md). */
export { TYPE_CHECK_MODES } from "./typecheck/type-check-mode.ts";
export type { TypeCheckMode } from "./typecheck/type-check-mode.ts";
export { CheckerThread } from "./typecheck/checker-thread.ts";
export type { CheckerThreadOptions, HeapUsage } from "./typecheck/checker-thread.ts";

/** Chat styles, warmup, harness limits and post-processors. */
export { CHAT_STYLES, DEFAULT_CHAT_STYLE } from "./tools/chat-style.ts";
export type { ChatStyle } from "./tools/chat-style.ts";
export { DEFAULT_HARNESS_LIMITS } from "./agents/harness.ts";
export type { HarnessLimits } from "./agents/harness.ts";
export type { WarmupBlock, WarmupSource, WarmupToolCall } from "./agents/warmup-blocks.ts";
export { FinalCheck, FINAL_CHECK_MESSAGE } from "./agents/final-check.ts";
export type { Reminder } from "./agents/reminders.ts";
export { answerTool } from "./agents/answer-tool.ts";

/** What the model knows: shared memory, examples, documents, difficulty. */
export type { SharedMemory, MemoryWrite } from "./jobs/memory/shared-memory.ts";
export type { MemoryItem, MemoryAccess } from "./agents/memory.ts";
export type { Example, ExampleDefinition, ExampleStep, ExamplesSource } from "./agents/examples.ts";
export type { AgentDocument, DocumentDefinition, DocumentsSource } from "./agents/documents.ts";
export { DIFFICULTIES } from "./agents/difficulty.ts";
export type { Difficulty } from "./agents/difficulty.ts";
export type { FinalCheckOptions } from "./agents/final-check.ts";
export type { PostProcessor, PostProcessorContext, PostProcessorOutcome, ReplyDraft } from "./agents/post-processor.ts";

/** Tools: controlled capabilities agent code calls, and how values are shown to the model. */
export { tool } from "./tools/tool.ts";
export type { Tool, ToolDefinition, ToolContext, ToolParams, ToolAgent } from "./tools/tool.ts";
export type { ToolCallRecord } from "./tools/call-tool.ts";
export type { ApprovalDecision, NeedsApproval } from "./tools/approval.ts";
export type { ChildJobStart, StartJobOptions } from "./tools/child-job.ts";
export { errorHandler } from "./tools/error-handler.ts";
export type { ErrorHandler, ErrorHandlerDefinition } from "./tools/error-handler.ts";
export { registerEnum } from "./tools/enum-members.ts";
export { llmRepr, OpaqueValue, registerFormatter } from "./tools/llm-repr.ts";
export type { LlmReprOptions, LlmFormatter } from "./tools/llm-repr.ts";
export type { ModelToolPayload as ToolPayload } from "./models/model-request.ts";

/** Interoperability: MCP servers' tools as STATEK tools, an agent's tools as an MCP server, AI SDK tools. */
export { mcpTools, DEFAULT_MCP_TIMEOUT_MS } from "./mcp/mcp-tools.ts";
export type { McpTools, McpToolsOptions, McpSource, McpCommand, McpUrl } from "./mcp/mcp-tools.ts";
export { mcpServer } from "./mcp/mcp-server.ts";
export type { McpServerOptions, McpCallRecord } from "./mcp/mcp-server.ts";
export type { McpMedia } from "./mcp/mcp-result.ts";
export type { AiSdkTool, AgentTools, AiSdkToolCallOptions } from "./tools/ai-sdk-tool.ts";

/** Documentation for the model: classes and functions in a job's scope. */
export { describeClass } from "./docs/class-docs.ts";
export type { ClassDocs, MemberDocs, FunctionDocs } from "./docs/class-docs.ts";

/** Models: any AI SDK language model or a model string, and a scripted model for tests and demos. */
export { scriptedModel, ScriptedModel } from "./models/scripted-model.ts";
export type { ScriptedTurn, ScriptedRequest, ScriptedModelOptions, ScriptedFinishReason } from "./models/scripted-model.ts";
export type { LanguageModel } from "./models/language-model.ts";
export type { ModelOptions } from "./models/model-settings.ts";
export type { ModelCallSettings } from "./models/model-call-settings.ts";
export type { ModelProvider, ProviderSettings } from "./models/model-provider.ts";
export type { ModelString } from "./models/model-string.ts";
export type { RetryPolicy } from "./models/retry-policy.ts";
export type { ModelPrice, PricingTable } from "./models/pricing.ts";

/** The workspace: its limits, the executor choice, and the values a job view may hold. */
export type { ExecutorChoice } from "./workspace/resolve-executor.ts";
export type { WorkspaceLimits } from "./workspace/limits.ts";
export { DEFAULT_WORKSPACE_LIMITS } from "./workspace/limits.ts";
export type { ExposeOptions } from "./workspace/membrane/exposed-classes.ts";
export { StoredDefinition, Tombstone } from "./workspace/stored-values.ts";

/** Errors. */
export { StatekError } from "./errors/statek-error.ts";
export { ValidationError } from "./errors/validation-error.ts";
export { NoSuchJobError } from "./errors/no-such-job-error.ts";
export { NoSuchAgentError } from "./errors/no-such-agent-error.ts";
export { NoEventVariableError } from "./errors/no-event-variable-error.ts";
export { JobConflictError } from "./errors/job-conflict-error.ts";
export { CorruptRecordError } from "./errors/corrupt-record-error.ts";
export { StoreError } from "./errors/store-error.ts";
export { ScriptExhaustedError } from "./errors/script-exhausted-error.ts";
export { InvalidToolArgumentsError } from "./errors/invalid-tool-arguments-error.ts";
export { NameError } from "./errors/name-error.ts";
export { PermissionError } from "./errors/permission-error.ts";
export type { PermissionProblem } from "./errors/permission-error.ts";
export type { NameProblem } from "./errors/name-error.ts";
export { InvalidToolsScopeError } from "./errors/invalid-tools-scope-error.ts";
export { JobFailedError } from "./errors/job-failed-error.ts";
export { UnsupportedModelVersionError } from "./errors/unsupported-model-version-error.ts";
export { InvalidModelStringError } from "./errors/invalid-model-string-error.ts";
export { InvalidStoreUrlError } from "./errors/invalid-store-url-error.ts";
export { NoSuchProviderError } from "./errors/no-such-provider-error.ts";
export { LoadProviderPackageError } from "./errors/load-provider-package-error.ts";
export { LoadApiKeyError } from "./errors/load-api-key-error.ts";
export { ModelCallError } from "./errors/model-call-error.ts";
export { ModelProviderError } from "./errors/model-provider-error.ts";
export { PromptBlockedError } from "./errors/prompt-blocked-error.ts";
export { IncompleteReplyError } from "./errors/incomplete-reply-error.ts";
export { InvalidPromptFileError } from "./errors/invalid-prompt-file-error.ts";
export { InvalidPricingError } from "./errors/invalid-pricing-error.ts";
export { JobFinishedError } from "./errors/job-finished-error.ts";
export { JobCancelledError } from "./errors/job-cancelled-error.ts";
export { InvalidJobStatusError } from "./errors/invalid-job-status-error.ts";
export { ForkTurnError } from "./errors/fork-turn-error.ts";
export { ResourceLimitError } from "./errors/resource-limit-error.ts";
export { InvalidWorkspaceLimitError } from "./errors/invalid-workspace-limit-error.ts";
export { ApprovalDenied } from "./errors/approval-denied.ts";
export { ApprovalDecidedError } from "./errors/approval-decided-error.ts";
export { ApprovalRequiredError } from "./errors/approval-required-error.ts";
export { NoSuchApprovalError } from "./errors/no-such-approval-error.ts";
export { WaitKindError } from "./errors/wait-kind-error.ts";
export { JobNotWaitingError } from "./errors/job-not-waiting-error.ts";
export { ChildJobFailed } from "./errors/child-job-failed.ts";
export { InDoubtError } from "./errors/in-doubt-error.ts";
export { ReplayDivergence } from "./errors/replay-divergence.ts";
export { TimeoutError } from "./errors/timeout-error.ts";
export type { TimeoutCause } from "./errors/timeout-error.ts";
export { McpToolError } from "./errors/mcp-tool-error.ts";
export { McpConnectionError } from "./errors/mcp-connection-error.ts";
export type { McpConnectionProblem } from "./errors/mcp-connection-error.ts";
