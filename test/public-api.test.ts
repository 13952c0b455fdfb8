/**
 * The public surface (issue 12, DESIGN.md §14): what each entry exports is deliberate (a list held here), no
 * export collides with a test runner's globals, entry files only re-export, and every `exports` target of
 * package.json names the entry file it is built from.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

const root = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, string | Record<string, string>> };

/** Each subpath's runtime exports, sorted. Adding one is a decision: add it here too. */
const SURFACE: Record<string, string[]> = {
  ".": [
    "Agent", "DIFFICULTIES", "MODEL_OPTION_KEYS", "REASONING_EFFORTS", "answerTool", "ApprovalDecidedError", "ApprovalDenied", "ApprovalRequiredError", "BUILT_IN_PRICING", "ChildJobFailed", "JobNotWaitingError", "NoSuchApprovalError", "BUILT_IN_PROVIDERS", "CHAT_STYLES", "CHAT_STYLE_NAMES", "CorruptRecordError", "DEFAULT_CHAT_STYLE",
    "DEFAULT_HARNESS_LIMITS", "DEFAULT_MCP_TIMEOUT_MS", "DEFAULT_RETRY_POLICY", "DEFAULT_WORKSPACE_LIMITS", "FINAL_CHECK_MESSAGE", "FinalCheck",
    "InvalidModelStringError", "InvalidPricingError", "InvalidPromptFileError", "InvalidToolArgumentsError", "InvalidToolsScopeError",
    "InvalidJobStatusError", "InvalidWorkspaceLimitError", "JOB_STATUSES", "JobCancelledError", "JobConflictError", "JobFailedError",
    "JobFinishedError", "LoadApiKeyError",
    "LoadProviderPackageError", "IncompleteReplyError", "McpConnectionError", "McpToolError", "ModelCallError", "ModelProviderError", "NameError", "NoSuchAgentError", "NoSuchJobError", "NoSuchProviderError", "OpaqueValue",
    "ResourceLimitError", "SYSTEM_TOOLS", "ScriptExhaustedError", "ScriptedModel", "Statek", "StatekError", "StoreError", "StoredDefinition", "Tombstone",
    "UnsupportedModelVersionError", "ValidationError", "costOf", "createModelRegistry", "describeClass", "errorHandler", "findPrice",
    "formatCost", "isErrorHandler", "isTool", "llmRepr", "loadPricingFile", "mcpServer", "mcpTools", "parseModelString", "registerEnum", "registerFormatter",
    "scriptedModel", "tool",
  ],
  "./testing": ["ScriptExhaustedError", "ScriptedModel", "runTestJob", "scriptedModel"],
  "./store": [
    "ACTIVE_STATUSES", "CorruptRecordError", "DEFAULT_STORE_PATH", "MAX_MEMORY_CONTEXTS", "FUTURE_KINDS", "FUTURE_STATES", "JOB_STATUSES", "JobConflictError",
    "LeaseLostError", "NoSuchJobError", "SQLITE_SYNCHRONOUS_MODES", "STATUS_TRANSITIONS", "SqliteStore", "StoreError", "WAITING_STATUS",
    "createSqliteStore", "createStore", "openStore", "runAdapterSuite", "runStoreSuite", "sampleJob", "sampleRecord",
  ],
  "./postgres": ["POSTGRES_MIGRATIONS", "POSTGRES_SCHEMA_VERSION", "PostgresStore", "createPostgresStore", "maskConnectionString"],
  "./executor": [
    "CODE_START_OP", "DEFAULT_VM_LIMITS", "GUEST_OPERATIONS", "QUICKJS_MAX_STACK_BYTES", "QUICKJS_MIN_VM_MEMORY_BYTES", "configureReadyVms",
    "configureSandboxPool",
    "configureSlotPool", "createQuickJsExecutor", "createTrustedExecutor", "guestBootstrapSource", "operationName", "runWorkspaceSuite",
    "sandboxThreadCount",
  ],
};

/** Globals of node:test, Jest and Vitest that an `import { … } from "statek"` must never shadow. */
const TEST_RUNNER_GLOBALS = [
  "describe", "it", "test", "suite", "expect", "before", "after", "beforeAll", "afterAll", "beforeEach", "afterEach", "mock", "vi", "jest",
  "bench", "assert", "chai", "expectTypeOf", "assertType", "fit", "fdescribe", "xit", "xdescribe", "xtest", "context", "todo", "skip",
];

/** What the user API must not export: internals that once leaked into it (issue 12). */
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
  it("package.json exports exactly the five entries, each built from the source its condition names", () => {
    assert.deepEqual(Object.keys(manifest.exports), [".", "./testing", "./store", "./postgres", "./executor", "./package.json"]);
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

  it("old public names still work as aliases of the new ones", async () => {
    const entry = (await import(sourceOf("."))) as Record<string, unknown>;
    assert.equal(entry.CHAT_STYLE_NAMES, entry.CHAT_STYLES);
    assert.deepEqual(entry.CHAT_STYLES, ["CONSOLE", "MARKDOWN", "MD_DIALOG", "DIRECT"]);
  });

  it("entry files only re-export", () => {
    for (const subpath of Object.keys(SURFACE)) {
      const code = readFileSync(sourceOf(subpath), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      const statements = code.split(";").map((statement) => statement.trim()).filter(Boolean);
      const other = statements.filter((statement) => !/^export (type )?\{[^}]*\} from "\.{1,2}\/[^"]+\.ts"$/.test(statement));
      assert.deepEqual(other, [], `${subpath}: only export { … } from "…" statements`);
    }
  });
});
