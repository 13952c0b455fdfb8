import { StatekError } from "./statek-error.ts";

/** Why an MCP server could not answer a tool call. */
export type McpConnectionProblem = "timeout" | "closed" | "unreachable";

/**
 * An MCP server did not answer a tool call: it did not answer in time (`timeout`), its connection closed or
 * its process exited (`closed`), or it could not be reached again (`unreachable`). The call's job goes on;
 * the model reads `McpConnectionError: MCP server 'weather' did not answer get_forecast within 30000 ms`.
 * Retryable: the server may be back later (a closed stdio server is started again on the next call).
 */
export class McpConnectionError extends StatekError {
  readonly server: string;
  readonly toolName: string;
  readonly problem: McpConnectionProblem;

  constructor(options: { server: string; toolName: string; problem: McpConnectionProblem; detail: string; cause?: unknown }) {
    super({
      name: "McpConnectionError",
      message: `MCP server '${options.server}' ${options.detail}`,
      isRetryable: true,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.server = options.server;
    this.toolName = options.toolName;
    this.problem = options.problem;
  }
}
