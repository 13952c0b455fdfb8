/**
 * @module
 * `mcpTools()`: an MCP server's tools as STATEK tools — for `new Agent({ tools })`, callable
 * from agent code and formally by the model. Each keeps its description; its JSON Schema becomes the tool's
 * parameters (validated like any tool's); results become workspace values (`mcp-result.ts`); an error result
 * is an `McpToolError`; a server that does not answer in time, or whose connection closed, is an
 * `McpConnectionError` — a tool error the model reads, never a stuck job. A tool is side-effecting (journaled,
 * never re-run on replay) unless the server marks it `readOnlyHint`; `idempotentHint` makes it `idempotent`.
 *
 * Closing: the tools hold the connection they made (`{ command }`, `{ url }`) until `tools.close()` (or
 * `await using tools = await mcpTools(…)`); a client the application passed stays the application's to close.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpConnectionError } from "../errors/mcp-connection-error.ts";
import { isIdentifier } from "../tools/is-identifier.ts";
import { paramsFromJsonSchema, toSchemaArguments, NO_DESCRIPTION } from "../tools/json-schema-params.ts";
import { isPlainObject } from "../tools/is-plain-object.ts";
import { tool, type Tool, type ToolContext } from "../tools/tool.ts";
import { McpConnection, type McpSource } from "./mcp-connection.ts";
import { valueOfResult } from "./mcp-result.ts";
import { errorMessage } from "../errors/error-text.ts";

export type { McpCommand, McpUrl, McpSource } from "./mcp-connection.ts";

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** The server's name in error messages. @default the name the server gives, else the command or URL */
  name?: string;
  /** Put before every tool name (`github_`), to keep two servers' tools apart. @default "" */
  prefix?: string;
  /** Import only these tools (their names on the server). @default every tool */
  include?: readonly string[];
  /** How long one tool call may take before it is a tool error. @default 60_000 */
  timeoutMs?: number;
  /** How long connecting (starting the server, the handshake) may take. @default 30_000 */
  connectTimeoutMs?: number;
}

/** The tools of one MCP server, with the handle that closes the connection they made. */
export type McpTools = Tool[] & {
  /** Closes the connection (stops a server started from `{ command }`); a client the application gave stays open. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

/** The default time a tool call may take. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/**
 * Connects to an MCP server and makes its tools STATEK tools. Rejects when the server cannot be reached or its
 * tool list cannot be used (a tool name that two tools would share, a schema that is not an object's).
 *
 * @example
 * ```ts
 * const github = await mcpTools({ command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] }, { prefix: "github_" });
 * const agent = new Agent({ role: "triage", tools: [...github, labelIssue] });
 * // …
 * await github.close();
 * ```
 */
export async function mcpTools(source: McpSource, options: McpToolsOptions = {}): Promise<McpTools> {
  const timeoutMs = checkMs(options.timeoutMs, "timeoutMs", DEFAULT_MCP_TIMEOUT_MS);
  const connectTimeoutMs = checkMs(options.connectTimeoutMs, "connectTimeoutMs", 30_000);
  const prefix = options.prefix ?? "";
  if (typeof prefix !== "string" || (prefix && !isIdentifier(prefix))) throw new TypeError(`mcpTools: prefix must be an identifier such as "github_", got ${JSON.stringify(prefix)}`);
  if (typeof source !== "object" || source === null) throw new TypeError("mcpTools: expected an MCP client, { command, args } or { url }");
  const connection = new McpConnection(source, { connectTimeoutMs });
  try {
    const client = await connection.client().catch((error: unknown) => {
      throw new Error(`mcpTools: cannot connect to the MCP server ${connection.description}: ${errorMessage(error)}`, { cause: error });
    });
    const server = options.name ?? client.getServerVersion()?.name ?? connection.description;
    const listed = await listAllTools(client, connectTimeoutMs);
    const wanted = options.include ? listed.filter((entry) => options.include!.includes(entry.name)) : listed;
    const missing = options.include?.filter((name) => !listed.some((entry) => entry.name === name)) ?? [];
    if (missing.length) throw new Error(`mcpTools: ${server} has no tool ${missing.map((name) => `'${name}'`).join(", ")} (it has: ${listed.map((entry) => entry.name).join(", ") || "none"})`);
    const byName = new Map<string, string>();
    const tools = wanted.map((entry) => {
      const name = prefix + identifierFor(entry.name);
      const other = byName.get(name);
      if (other !== undefined) throw new TypeError(`mcpTools: ${server}'s tools '${other}' and '${entry.name}' would both be named '${name}'`);
      byName.set(name, entry.name);
      return importTool(entry, name, { server, connection, timeoutMs });
    });
    const close = () => connection.close();
    return Object.assign(tools, { close, [Symbol.asyncDispose]: close });
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** A tool as the server lists it (the fields used here). */
interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean | undefined; idempotentHint?: boolean | undefined; title?: string | undefined } | undefined;
}

async function listAllTools(client: Client, timeout: number): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function importTool(entry: ListedTool, name: string, context: { server: string; connection: McpConnection; timeoutMs: number }): Tool {
  const label = `mcpTools: ${context.server}'s tool '${entry.name}'`;
  const { params, propertyOf } = paramsFromJsonSchema(isPlainObject(entry.inputSchema) ? entry.inputSchema : { type: "object" }, label);
  const description = [entry.description, entry.title, entry.annotations?.title].find((text) => typeof text === "string" && text.trim()) ?? NO_DESCRIPTION;
  return tool({
    name,
    description,
    params,
    readOnly: entry.annotations?.readOnlyHint === true,
    idempotent: entry.annotations?.idempotentHint === true,
    run: (args, ctx) => callServerTool(entry.name, toSchemaArguments(args, propertyOf), ctx, context),
  });
}

async function callServerTool(
  toolName: string, args: Record<string, unknown>, ctx: ToolContext, context: { server: string; connection: McpConnection; timeoutMs: number },
): Promise<unknown> {
  const { server, connection, timeoutMs } = context;
  let client: Client;
  try {
    client = await connection.client();
  } catch (error) {
    throw new McpConnectionError({ server, toolName, problem: "unreachable", detail: `cannot be reached for ${toolName}: ${messageOf(error)}`, cause: error });
  }
  let result: unknown;
  try {
    result = await client.callTool({ name: toolName, arguments: args }, undefined, { timeout: timeoutMs, signal: ctx.signal });
  } catch (error) {
    throw connectionError(error, { server, toolName, timeoutMs }) ?? error;
  }
  return valueOfResult(result, { server, toolName });
}

/** The SDK's timeout and closed-connection errors as `McpConnectionError`; other errors (the server's protocol errors) stay as they are. */
function connectionError(error: unknown, call: { server: string; toolName: string; timeoutMs: number }): McpConnectionError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === REQUEST_TIMEOUT) {
    return new McpConnectionError({ ...call, problem: "timeout", detail: `did not answer ${call.toolName} within ${call.timeoutMs} ms`, cause: error });
  }
  // A closed client the application gave answers "Not connected" (no code): the same news for the model.
  if (code === CONNECTION_CLOSED || (error instanceof Error && error.message === "Not connected")) {
    return new McpConnectionError({ ...call, problem: "closed", detail: `closed the connection before answering ${call.toolName} (did the server exit?)`, cause: error });
  }
  return undefined;
}

// JSON-RPC error codes of the SDK (`ErrorCode` in types.js), written out so that this module loads without the SDK.
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

function messageOf(error: unknown): string {
  return errorMessage(error);
}

/** An identifier for an MCP tool name (`get-forecast` → `get_forecast`). */
function identifierFor(name: string): string {
  return isIdentifier(name) ? name : name.replace(/[^\w$]/g, "_").replace(/^(?=\d)/, "_") || "_";
}

function checkMs(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`mcpTools: ${name} must be a positive integer (milliseconds), got ${String(value)}`);
  return value;
}
