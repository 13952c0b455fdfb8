/**
 * The public surface: what each entry exports at run time is deliberate (a list held here; the types are held by
 * the API report in `api/`), no export collides with a test runner's globals, entry files only re-export, and
 * every `exports` target of package.json names the entry file it is built from.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

const root = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, string | Record<string, string>> };

/** Each subpath's runtime exports, sorted. Adding one is a decision: add it here too (and to `api/`). */
const SURFACE: Record<string, string[]> = {
  ".": [
    "Agent", "ApprovalDecidedError", "DIFFICULTIES", "answerTool", "ApprovalDenied", "ApprovalRequiredError", "CHAT_STYLES", "CheckerThread", "ChildJobFailed",
    "CorruptRecordError", "DEFAULT_CHAT_STYLE", "DEFAULT_HARNESS_LIMITS", "DEFAULT_MCP_TIMEOUT_MS",
    "DEFAULT_WORKSPACE_LIMITS", "FINAL_CHECK_MESSAGE", "FinalCheck", "ForkTurnError", "InDoubtError", "IncompleteReplyError",
    "InvalidJobStatusError", "InvalidModelStringError", "InvalidPricingError", "InvalidPromptFileError", "InvalidStoreUrlError",
    "InvalidToolArgumentsError", "InvalidToolsScopeError", "InvalidWorkspaceLimitError", "JOB_STATUSES",
    "JobCancelledError", "JobConflictError", "JobFailedError", "JobFinishedError", "JobNotWaitingError",
    "LoadApiKeyError", "LoadProviderPackageError", "McpConnectionError", "McpToolError", "ModelCallError",
    "ModelProviderError", "PromptBlockedError", "NameError", "NoEventVariableError", "NoSuchAgentError", "NoSuchApprovalError", "NoSuchJobError",
    "NoSuchProviderError", "OpaqueValue", "PermissionError", "ReplayDivergence", "ResourceLimitError", "ScriptExhaustedError",
    "ScriptedModel", "Statek", "StatekError", "StoreError", "StoredDefinition", "TYPE_CHECK_MODES", "TimeoutError", "Tombstone",
    "UnsupportedModelVersionError", "ValidationError", "WaitKindError", "describeClass", "errorHandler", "llmRepr",
    "mcpServer", "mcpTools", "registerEnum", "registerFormatter", "scriptedModel", "tool",
  ],
  "./testing": [
    "ScriptExhaustedError", "ScriptedModel", "runTestJob", "scriptedModel",
  ],
  "./store": [
    "ACTIVE_STATUSES", "BREAKER_STATES", "CorruptRecordError", "DEFAULT_STORE_PATH", "FUTURE_KINDS", "MAX_MEMORY_CONTEXTS", "FUTURE_STATES", "JOB_STATUSES",
    "JobConflictError", "LeaseLostError", "NoSuchJobError", "SQLITE_SYNCHRONOUS_MODES", "STATUS_TRANSITIONS",
    "SqliteStore", "StoreError", "WAITING_STATUS", "WAIT_DOORS", "WaitKindError", "createSqliteStore", "createStore",
    "openStore", "runAdapterSuite", "runStoreSuite", "sampleJob", "sampleRecord",
  ],
  "./postgres": [
    "POSTGRES_MIGRATIONS", "POSTGRES_SCHEMA_VERSION", "PostgresStore", "createPostgresStore", "maskConnectionString",
  ],
  "./executor": [
    "DEFAULT_VM_LIMITS", "QUICKJS_MAX_STACK_BYTES", "QUICKJS_MIN_VM_MEMORY_BYTES", "SandboxPool", "createQuickJsExecutor",
    "createTrustedExecutor", "runWorkspaceSuite",
  ],
  "./models": [
    "BUILT_IN_PRICING", "BUILT_IN_PROVIDERS", "DEFAULT_RETRY_POLICY", "MODEL_OPTION_KEYS", "REASONING_EFFORTS", "costOf", "createModelRegistry", "findPrice",
    "loadPricingFile", "parseModelString",
  ],
  "./format": [
    "buildTimeline", "formatCost", "formatDuration", "formatError", "formatJobUsage", "formatLocalTime", "formatMemoryBinding", "formatMemoryEntry", "formatRelativeTime", "formatSpan", "formatTime", "formatUsage",
    "postProcessVerdict", "timelineItem", "unusualFinish", "variableChanges",
  ],
  "./agents": [
    "SYSTEM_TOOLS", "isErrorHandler", "isTool",
  ],
};

/** Globals of node:test, Jest and Vitest that an `import { … } from "statek"` must never shadow. */
const TEST_RUNNER_GLOBALS = [
  "describe", "it", "test", "suite", "expect", "before", "after", "beforeAll", "afterAll", "beforeEach", "afterEach", "mock", "vi", "jest",
  "bench", "assert", "chai", "expectTypeOf", "assertType", "fit", "fdescribe", "xit", "xdescribe", "xtest", "context", "todo", "skip",
];

/** What the user API must not export: internals of its modules. */
const INTERNALS = [
  "describe", "briefLine", "toolEntry", "toolDeclaration", "renderPrompt", "toolPayload", "payloadProfileFor", "requestTools", "parseVariants",
  "textVariant", "selectScopedTools", "parseLlmToolsScope", "selectTools", "ToolRegistry", "configureSlotPool", "configureReadyVms",
  "createQuickJsExecutor", "createTrustedExecutor", "openStore", "createSqliteStore", "DEFER_ERROR_HANDLER", "matchesChatStyle", "TS_CLI",
  "tsCliTool", "briefTool", "docstrTool", "parseAcl", "hasAccess",
];

function sourceOf(subpath: string): string {
  const target = manifest.exports[subpath];
  assert.ok(typeof target === "object", `${subpath} has conditions`);
  return join(root, target["statek-source"]!);
}

describe("the public API", () => {
  it("package.json exports exactly these entries, each built from the source its condition names", () => {
    assert.deepEqual(Object.keys(manifest.exports), [...Object.keys(SURFACE), "./package.json"]);
    for (const subpath of Object.keys(SURFACE)) {
      const target = manifest.exports[subpath] as Record<string, string>;
      const source = target["statek-source"]!;
      assert.ok(existsSync(join(root, source)), `${subpath}: ${source} exists`);
      const built = source.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, "");
      assert.deepEqual([target.types, target.default], [`${built}.d.ts`, `${built}.js`], `${subpath} builds from ${source}`);
    }
  });

  for (const [subpath, names] of Object.entries(SURFACE)) {
    it(`statek${subpath.slice(1)} exports what users of it need, and nothing a test runner declares`, async () => {
      const entry = (await import(sourceOf(subpath))) as Record<string, unknown>;
      const exported = Object.keys(entry).sort();
      assert.deepEqual(exported, [...names].sort());
      assert.deepEqual(exported.filter((name) => TEST_RUNNER_GLOBALS.includes(name)), []);
      for (const name of exported) assert.notEqual(entry[name], undefined, `${name} has a value`);
    });
  }

  it("the user API leaves internals to their modules", async () => {
    const entry = (await import(sourceOf("."))) as Record<string, unknown>;
    assert.deepEqual(INTERNALS.filter((name) => name in entry), []);
  });

  it("helpers live on subpaths, not on the user API; the executor contract leaves out the guest protocol", async () => {
    const entry = (await import(sourceOf("."))) as Record<string, unknown>;
    const helpers = ["costOf", "findPrice", "formatCost", "parseModelString", "BUILT_IN_PROVIDERS", "BUILT_IN_PRICING", "SYSTEM_TOOLS", "CHAT_STYLE_NAMES"];
    assert.deepEqual(helpers.filter((name) => name in entry), []);
    const executor = (await import(sourceOf("./executor"))) as Record<string, unknown>;
    assert.deepEqual(["CODE_START_OP", "GUEST_OPERATIONS", "guestBootstrapSource", "operationName"].filter((name) => name in executor), []);
  });

  it("limits, which named harness limits on an agent and workspace limits on Statek.open, is refused naming the option meant", async () => {
    const { Agent, Statek } = (await import(sourceOf("."))) as typeof import("../src/index.ts");
    assert.throws(() => new Agent({ role: "a", ...({ limits: { maxTurns: 1 } } as object) }), /limits is not an option; .* are harness/);
    await assert.rejects(Statek.open({ store: ":memory:", ...({ limits: { cellTimeMs: 1 } } as object) }), /limits is not an option; .* are workspaceLimits/);
  });

  it("entry files only re-export", () => {
    for (const subpath of Object.keys(SURFACE)) {
      const code = readFileSync(sourceOf(subpath), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      const statements = code.split(";").map((statement) => statement.trim()).filter(Boolean);
      // The one exception, first in every entry: the Node.js version check, which must run before anything else.
      assert.match(statements[0] ?? "", /^import "(\.{1,2}\/)+runtime\/check-node-version\.ts"$/, `${subpath}: the Node.js version check comes first`);
      const other = statements.slice(1).filter((statement) => !/^export (type )?\{[^}]*\} from "\.{1,2}\/[^"]+\.ts"$/.test(statement));
      assert.deepEqual(other, [], `${subpath}: only export { … } from "…" statements`);
    }
  });
});
