/**
 * @module
 * A connection to an MCP server for imported tools: a client the application made (used as it is, never
 * closed or replaced here), or one this module makes from `{ command, args }` (a child process over stdio) or
 * `{ url }` (Streamable HTTP). A connection this module made is made again on the next call after it closed
 * (the server process exited, the HTTP session ended), so a server that died and can be started again serves
 * the next call. The SDK is imported on first use: applications that never use MCP do not load it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** Starts an MCP server as a child process and talks to it over stdio. */
export interface McpCommand {
  command: string;
  args?: readonly string[];
  /** The child's environment. @default the SDK's safe default (PATH, HOME, …, not the whole parent environment) */
  env?: Record<string, string>;
  cwd?: string;
}

/** Talks to an MCP server over Streamable HTTP. */
export interface McpUrl {
  url: string | URL;
  /** Headers for every request (an `Authorization` header). */
  headers?: Record<string, string>;
}

/** Where imported tools come from: a connected SDK `Client`, a command to start, or a URL. */
export type McpSource = Client | McpCommand | McpUrl;

/** One server's connection, as imported tools use it. */
export class McpConnection {
  readonly #source: McpSource;
  readonly #connectTimeoutMs: number;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #closed = false;

  constructor(source: McpSource, options: { connectTimeoutMs: number }) {
    this.#source = source;
    this.#connectTimeoutMs = options.connectTimeoutMs;
    if (isClient(source)) this.#client = source;
  }

  /** Whether the application gave the client (then it is the application's to close). */
  get external(): boolean {
    return isClient(this.#source);
  }

  /** What the source is, for messages (`node server.js`, `http://…/mcp`). */
  get description(): string {
    const source = this.#source;
    if (isClient(source)) return source.getServerVersion()?.name ?? "the given client";
    if ("command" in source) return [source.command, ...(source.args ?? [])].join(" ");
    return String(source.url);
  }

  /** The connected client: the current one, or a new connection when the last one closed. */
  async client(): Promise<Client> {
    if (this.#closed) throw new Error("the MCP tools were closed (tools.close())");
    if (this.#client) return this.#client;
    this.#connecting ??= this.#connect().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #connect(): Promise<Client> {
    const source = this.#source;
    if (isClient(source)) throw new Error("the given MCP client is closed");
    const [{ Client: ClientClass }, transport] = await Promise.all([import("@modelcontextprotocol/sdk/client/index.js"), makeTransport(source)]);
    const client = new ClientClass({ name: "statek", version: "0" });
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
    };
    try {
      await client.connect(transport, { timeout: this.#connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.close();
      throw new Error("the MCP tools were closed (tools.close())");
    }
    this.#client = client;
    return client;
  }

  /** Closes a connection this module made; a client the application gave is left open. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (client && !this.external) await client.close();
  }
}

async function makeTransport(source: McpCommand | McpUrl) {
  if ("command" in source) {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    return new StdioClientTransport({
      command: source.command,
      args: [...(source.args ?? [])],
      ...(source.env ? { env: source.env } : {}),
      ...(source.cwd ? { cwd: source.cwd } : {}),
      // The server's own log goes where this process's goes, rather than into a pipe nobody reads.
      stderr: "inherit",
    });
  }
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return new StreamableHTTPClientTransport(new URL(source.url), source.headers ? { requestInit: { headers: source.headers } } : undefined);
}

/** True for an SDK client (anything with the client's `callTool` and `listTools`). */
export function isClient(source: unknown): source is Client {
  return typeof source === "object" && source !== null &&
    typeof (source as { callTool?: unknown }).callTool === "function" && typeof (source as { listTools?: unknown }).listTools === "function";
}
