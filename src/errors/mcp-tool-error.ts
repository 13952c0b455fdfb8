import { StatekError } from "./statek-error.ts";

/**
 * An MCP server answered a tool call with an error result (`isError: true`). Agent code can catch it; the
 * model reads `McpToolError: <the server's text>`.
 */
export class McpToolError extends StatekError {
  /** The tool's name on the server. */
  readonly toolName: string;
  /** The server's name, as it introduced itself (or as the application named it). */
  readonly server: string;
  /** The text the server gave as the error. */
  readonly text: string;

  constructor(options: { toolName: string; server: string; text: string }) {
    super({ name: "McpToolError", message: options.text || `${options.server} reported an error from ${options.toolName} without a message` });
    this.toolName = options.toolName;
    this.server = options.server;
    this.text = options.text;
  }
}
