/**
 * @module
 * An agent's tools served over MCP: `mcpServer(agent)` is an SDK `Server` that lists the
 * agent's visible tools (hidden ones never; an agent's `allowedTools` narrow them) with their descriptions and
 * JSON Schemas — the same payload a model gets, plain profile — and runs each call through `callTool`, the
 * path a formal call from a model takes: binding, argument preparation, validation, the tool's `run`, error
 * formatting (`ValidationError: …`, `<ErrorName>: <message>` as an error result).
 *
 * The SDK's low-level `Server` is used rather than `McpServer`: the latter validates arguments against the Zod
 * schema before any preparation (an ISO date string would fail `z.date()`), and lists its own conversion of it.
 *
 * There is no job behind a call: `ctx.job` names the MCP session (`mcp:<session>`), `ctx.idempotencyKey` is
 * unique per call (`mcp:<session>:<request id>:<random UUID>`), `ctx.variable(name)` finds the agent's `context`
 * values, `ctx.future` is refused (durable waits need a job), and tool error handlers are not registered (there
 * is no job to fail). Each call's record goes to `onCall`; `statek mcp serve`
 * writes it to stderr as a JSON line.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Agent } from "../agents/agent.ts";
import { toolPayload } from "../docs/tool-payload.ts";
import { callTool, type ToolCallRecord } from "../tools/call-tool.ts";
import { isPlainObject } from "../tools/is-plain-object.ts";
import { formatPrinted } from "../workspace/membrane/broker.ts";
import { selectTools } from "../tools/tool-registry.ts";
import type { Tool, ToolContext } from "../tools/tool.ts";

/** One call served over MCP, as {@link McpServerOptions.onCall} hears of it. */
export interface McpCallRecord extends ToolCallRecord {
  /** The agent whose tool was called. */
  role: string;
  /** The MCP session (Streamable HTTP), or the server's `defaultSession` (`stdio` for `statek mcp serve`). */
  session: string;
  /** When the call ended. */
  at: string;
}

/** Options of {@link mcpServer}. */
export interface McpServerOptions {
  /** The server's name in the MCP handshake. @default `statek-<role>` */
  name?: string;
  /** The server's version in the handshake. @default "1.0.0" */
  version?: string;
  /** Hears every call once it ended (`statek mcp serve` logs them). */
  onCall?(record: McpCallRecord): void;
  /** The session name of calls over a transport without sessions (stdio, in-memory). @default "single" */
  defaultSession?: string;
}

/** The tools of `agent` an MCP client may list and call: its own visible tools that its jobs may call. */
export function servedTools(agent: Agent): Tool[] {
  const visible = selectTools(agent.registry.own, "ALL");
  return agent.allowedTools ? visible.filter((candidate) => agent.allowedTools!.includes(candidate.name)) : visible;
}

/**
 * An MCP server (the SDK's `Server`) for `agent`'s tools; connect it to a transport (`server.connect(…)`).
 *
 * @example
 * ```ts
 * const server = await mcpServer(agent);
 * await server.connect(new StdioServerTransport());
 * ```
 */
export async function mcpServer(agent: Agent, options: McpServerOptions = {}): Promise<Server> {
  const [{ Server: ServerClass }, { CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const tools = servedTools(agent);
  const byName = new Map(tools.map((candidate) => [candidate.name, candidate]));
  const listing = tools.map((candidate) => {
    const payload = toolPayload(candidate, "plain");
    return {
      name: candidate.name,
      description: payload.description,
      inputSchema: { ...payload.inputSchema, type: "object" as const },
      annotations: { readOnlyHint: candidate.readOnly, idempotentHint: candidate.idempotent },
    };
  });
  const server = new ServerClass({ name: options.name ?? `statek-${agent.role}`, version: options.version ?? "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listing }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const found = byName.get(name);
    // A hidden or not-allowed tool is answered like an unknown one: its existence is not served either.
    if (!found) throw new McpError(ErrorCode.InvalidParams, `NameError: tool '${name}' not found`);
    const session = extra.sessionId ?? options.defaultSession ?? "single";
    const printed: string[] = [];
    let record: ToolCallRecord | undefined;
    let value: unknown;
    try {
      value = await callTool(found, isPlainObject(args) ? args : {}, {
        origin: "formal",
        callId: String(extra.requestId),
        // Unique per call, across sessions and restarts: a payment API deduplicating by it never drops a real call
        // (over stdio the session is the same for every client, and JSON-RPC ids start again with each client).
        ctx: toolContext(agent, session, `mcp:${session}:${String(extra.requestId)}:${randomUUID()}`, printed, extra.signal),
        printed: () => printed,
        record: (done) => void (record = done),
      });
    } catch {
      // Recorded by callTool: the error is the call's result.
    }
    const done = record!;
    options.onCall?.({ ...done, role: agent.role, session, at: new Date().toISOString() });
    if (done.error !== undefined) {
      return { isError: true, content: [{ type: "text" as const, text: [done.result, done.error].filter(Boolean).join("\n") }] };
    }
    const structured = structuredContentOf(value);
    return { content: [{ type: "text" as const, text: done.result ?? "" }], ...(structured ? { structuredContent: structured } : {}) };
  });
  return server;
}

/** The framework context of a call served over MCP. */
function toolContext(agent: Agent, session: string, idempotencyKey: string, printed: string[], signal: AbortSignal): ToolContext {
  return {
    job: { id: `mcp:${session}`, role: agent.role, metadata: agent.metadata },
    agent,
    print: (...values) => void printed.push(formatPrinted(values)),
    variable: (name) => (Object.hasOwn(agent.context, name) ? { value: agent.context[name] } : undefined),
    signal,
    idempotencyKey,
    future: () => {
      throw new Error("durable futures need a job: this tool waits for the application, which a call over MCP cannot do");
    },
    startJob: () => {
      throw new Error("child jobs need a parent job: a call over MCP has none");
    },
  };
}

/** A plain-object result as JSON, for clients that read `structuredContent`; anything else has only its text. */
function structuredContentOf(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) return undefined;
  try {
    const copy = JSON.parse(JSON.stringify(value)) as unknown;
    return isPlainObject(copy) ? copy : undefined;
  } catch {
    return undefined;
  }
}
