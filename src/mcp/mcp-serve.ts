/**
 * @module
 * Serving an agent's tools over a transport: stdio (the process's stdin/stdout, one session) or Streamable
 * HTTP on a loopback address (a session per client, each with its own `mcpServer`). HTTP binds 127.0.0.1 by
 * default and checks the `Host` header against the address it serves (DNS-rebinding protection), since a
 * page in a browser on the same machine can reach a loopback port; and, as the MCP specification requires, it
 * validates the `Origin` header a browser sends with every request: only the server's own origin, and those the
 * application allows, get through (a client that is not a browser sends none).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Agent } from "../agents/agent.ts";
import { mcpServer, type McpServerOptions } from "./mcp-server.ts";
import { errorMessage } from "../errors/error-text.ts";

/** A running Streamable HTTP server. */
export interface McpHttpServer {
  /** The endpoint clients connect to (`http://127.0.0.1:<port>/mcp`). */
  url: string;
  /** Stops accepting requests and closes every session. */
  close(): Promise<void>;
}

/** Options of {@link serveMcpHttp}. */
export interface McpHttpOptions extends McpServerOptions {
  /** @default 0 (any free port; read it from `url`) */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /**
   * Origins (`scheme://host[:port]`) whose pages may call the server from a browser, besides the server's own.
   * A request with any other `Origin` header is refused with 403. @default [] (only the server's own origin)
   */
  allowedOrigins?: readonly string[];
}

/** The largest request body the server reads to start a session. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Serves `agent`'s tools on stdin/stdout until stdin closes; resolves then. */
export async function serveMcpStdio(agent: Agent, options: McpServerOptions = {}): Promise<void> {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const server = await mcpServer(agent, { defaultSession: "stdio", ...options });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    // The SDK's stdio transport does not end on EOF: a client that closes our stdin is gone.
    process.stdin.once("end", () => void server.close());
  });
  await server.connect(transport);
  await closed;
}

/** Serves `agent`'s tools over Streamable HTTP at `http://<host>:<port>/mcp`. */
export async function serveMcpHttp(agent: Agent, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const [{ StreamableHTTPServerTransport }, { isInitializeRequest }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  type Transport = InstanceType<typeof StreamableHTTPServerTransport>;
  const host = options.host ?? "127.0.0.1";
  const extraOrigins = (options.allowedOrigins ?? []).map((origin) => checkOrigin(origin));
  const sessions = new Map<string, Transport>();
  let allowedHosts: string[] = [];
  let allowedOrigins = new Set<string>();
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, `internal error: ${errorMessage(error)}`);
      else response.end();
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // DNS-rebinding protection: a page that made evil.example resolve to 127.0.0.1 still sends its own Host.
    if (!allowedHosts.includes(request.headers.host ?? "")) return reply(response, 403, `forbidden: Host ${JSON.stringify(request.headers.host ?? "")} is not this server's`);
    // A page of another site (or a sandboxed one: `null`) must not drive the tools with the user's browser.
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) {
      return reply(response, 403, `forbidden: Origin ${JSON.stringify(origin)} is not allowed (allow it with allowedOrigins, or --allow-origin)`);
    }
    if (new URL(request.url ?? "/", "http://localhost").pathname !== "/mcp") return reply(response, 404, "not found: the MCP endpoint is /mcp");
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      if (!transport) return reply(response, 404, `no session ${sessionId} (it ended; initialize a new one)`);
      return transport.handleRequest(request, response);
    }
    if (request.method !== "POST") return reply(response, 400, "no session: send an initialize request first");
    const body = await readJson(request);
    if (body === undefined) return reply(response, 400, "the request body is not JSON");
    if (!isInitializeRequest(body)) return reply(response, 400, "no session: send an initialize request first");
    const transport: Transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = await mcpServer(agent, options);
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : options.port ?? 0;
  const shown = host.includes(":") ? `[${host}]` : host;
  allowedHosts = [`${shown}:${port}`, ...(host === "127.0.0.1" || host === "::1" ? [`localhost:${port}`] : [])];
  allowedOrigins = new Set([...allowedHosts.map((allowed) => `http://${allowed}`), ...extraOrigins]);
  return {
    url: `http://${shown}:${port}/mcp`,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** An allowed origin as browsers send it (`https://app.example`, no path); a `TypeError` naming anything else. */
function checkOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(`allowedOrigins: ${JSON.stringify(origin)} is not an origin (scheme://host[:port])`);
  }
  if (url.origin === "null" || url.origin !== origin) throw new TypeError(`allowedOrigins: ${JSON.stringify(origin)} is not an origin (scheme://host[:port], as a browser sends it: ${url.origin})`);
  return origin;
}

function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}
