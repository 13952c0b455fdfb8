/**
 * @module
 * `statek mcp serve`: an agent's tools as an MCP server, over stdio (the default: stdout is the protocol,
 * so everything else goes to stderr) or Streamable HTTP on a loopback address. Each call is logged on stderr
 * as one JSON line (`{"event":"tool-call", …}`: tool, arguments, result or error, duration, session) — the
 * record of calls served this way; no job is created for them.
 */
import type { McpCallRecord } from "../../mcp/mcp-server.ts";
import { servedTools } from "../../mcp/mcp-server.ts";
import { serveMcpHttp, serveMcpStdio } from "../../mcp/mcp-serve.ts";
import { CliError } from "../../errors/cli-error.ts";
import { HELP_OPTION, type Command, type CommandInput } from "../command.ts";
import type { CliOutput } from "../cli-io.ts";
import { agentsModuleOf, loadAgents, pickAgent } from "../load-agents.ts";

/** `statek mcp serve --agents <module> [--role R] [--http [--port N] [--host H] [--allow-origin O …]]`. */
export const mcpCommand: Command = {
  name: "mcp",
  summary: "Serve an agent's tools over MCP (stdio, or Streamable HTTP on loopback).",
  description:
    "statek mcp serve exposes the visible tools of an agent (hidden ones never; the agent's allowedTools\n" +
    "narrow them) to MCP clients, with their descriptions and JSON Schemas. Calls are prepared, validated and\n" +
    "answered as a model's tool call in a job would be; errors come back as error results. Over stdio (the\n" +
    "default) stdout carries the protocol; with --http the server listens on http://127.0.0.1:<port>/mcp and\n" +
    "refuses requests from browser pages of other origins than its own (--allow-origin adds one).\n" +
    "Every call is logged on stderr as a JSON line; so is the address with --http ({\"event\":\"listening\"}).",
  arguments: [{ name: "action", description: "serve (the only action)." }],
  options: {
    agents: { type: "string", valueName: "MODULE", description: "The module that exports the agents (by name, as 'agents', or as default)." },
    role: { type: "string", valueName: "R", description: "The agent to serve (needed when the module has several)." },
    http: { type: "boolean", description: "Serve Streamable HTTP instead of stdio." },
    port: { type: "string", valueName: "N", description: "The HTTP port (default: any free port, logged on stderr)." },
    host: { type: "string", valueName: "H", description: "The HTTP address to bind (default 127.0.0.1)." },
    "allow-origin": {
      type: "string", valueName: "ORIGIN", multiple: true,
      description: "A browser origin (scheme://host[:port]) whose pages may call the HTTP server, besides its own (repeatable).",
    },
    help: HELP_OPTION,
  },
  examples: [
    "statek mcp serve --agents ./agents.ts --role calendar_assistant",
    "statek mcp serve --agents ./agents.ts --role calendar_assistant --http --port 3001",
  ],
  run: runMcp,
};

async function runMcp({ values, positionals, io }: CommandInput): Promise<number> {
  const usage = (message: string) => new CliError({ message, exitCode: 2, command: "mcp" });
  if (positionals[0] !== "serve") throw usage(`unknown action '${positionals[0]}' (the action is: serve)`);
  const agentsModule = agentsModuleOf(values.agents);
  if (agentsModule === undefined) throw usage("--agents <module> is needed: the module that exports the agent (or set STATEK_AGENTS)");
  if (!values.http && (values.port !== undefined || values.host !== undefined || values["allow-origin"] !== undefined)) {
    throw usage("--port, --host and --allow-origin go with --http");
  }
  const allowedOrigins = (values["allow-origin"] ?? []) as string[];
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usage(`--port must be a port number (0–65535), got '${values.port}'`);
  // Over stdio, stdout is the protocol: what the agents module or a tool logs with console.log goes to stderr.
  if (!values.http) keepStdoutForProtocol();
  const agent = pickAgent(await loadAgents(agentsModule, "statek mcp serve"), values.role as string | undefined, "mcp");
  const log = jsonLines(io.stderr);
  const onCall = (record: McpCallRecord) => log({ event: "tool-call", ...record });
  const tools = servedTools(agent).map((tool) => tool.name);
  if (!values.http) {
    log({ event: "serving", transport: "stdio", role: agent.role, tools });
    await serveMcpStdio(agent, { onCall });
    return 0;
  }
  let server;
  try {
    server = await serveMcpHttp(agent, { port, ...(typeof values.host === "string" ? { host: values.host } : {}), allowedOrigins, onCall });
  } catch (error) {
    if (error instanceof TypeError) throw usage(error.message.replace(/^allowedOrigins: /, "--allow-origin: "));
    throw error;
  }
  log({ event: "listening", transport: "http", url: server.url, role: agent.role, tools });
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await server.close();
  return 0;
}

function keepStdoutForProtocol(): void {
  for (const method of ["log", "info", "debug"] as const) console[method] = (...args: unknown[]) => console.error(...args);
}

function jsonLines(out: CliOutput): (entry: Record<string, unknown>) => void {
  return (entry) => void out.write(JSON.stringify({ at: new Date().toISOString(), ...entry }) + "\n");
}
