/**
 * @module
 * `statek ui`: serves the operator's web UI over a store until interrupted (Ctrl-C, SIGTERM).
 */
import { Statek } from "../../jobs/statek.ts";
import { formatError } from "../../tools/call-tool.ts";
import { parseTokens } from "../../ui/ui-access.ts";
import { uiActionsOf } from "../../ui/ui-actions.ts";
import { DEFAULT_UI_HOST, DEFAULT_UI_PORT, startUi } from "../../ui/serve-ui.ts";
import { CliError } from "../../errors/cli-error.ts";
import { HELP_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { openCliStore } from "../open-cli-store.ts";

/** `statek ui [--store STORE] [--port N] [--host H] [--token NAME:SECRET]`. */
export const uiCommand: Command = {
  name: "ui",
  summary: "Serve the web UI: every job, live, with actions on the waiting ones.",
  description:
    "Serves the operator's web UI over the store: jobs by status, agent, parent and time; a job's timeline,\n" +
    "variables, journal and pending waits; live updates; actions (push a message, resolve or reject a future,\n" +
    "approve/deny, cancel, retry), each recorded in the job's history with who did it. A JSON API is under /api.\n" +
    "Serves 127.0.0.1 by default; any other host needs a token (--token or STATEK_UI_TOKEN). Stop with Ctrl-C.",
  arguments: [],
  options: {
    port: { type: "string", valueName: "N", description: `The port (default ${DEFAULT_UI_PORT}; 0 picks a free one).` },
    host: { type: "string", valueName: "H", description: `The address to listen on (default ${DEFAULT_UI_HOST}).` },
    token: {
      type: "string",
      valueName: "T",
      description: "Require a token: NAME:SECRET (recorded as NAME), several separated by commas (default: STATEK_UI_TOKEN).",
    },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek ui", "statek ui --port 8080", "STATEK_UI_TOKEN=alice:$(openssl rand -hex 16) statek ui --host 0.0.0.0"],
  run: runUi,
};

async function runUi({ values, io }: CommandInput): Promise<number> {
  const usage = (message: string) => new CliError({ message, exitCode: 2, command: "ui" });
  const port = values.port === undefined ? DEFAULT_UI_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usage(`--port must be a port number from 0 to 65535 (got '${String(values.port)}')`);
  const host = typeof values.host === "string" ? values.host : DEFAULT_UI_HOST;
  const tokenText = typeof values.token === "string" ? values.token : process.env["STATEK_UI_TOKEN"];
  let tokens;
  try {
    tokens = tokenText ? parseTokens(tokenText) : [];
  } catch (error) {
    throw usage(`--token: ${formatError(error)}`);
  }
  const store = await openCliStore(values.store as string | undefined);
  const statek = await Statek.open({ store });
  try {
    const ui = await startUi({ store, actions: uiActionsOf(statek), host, port, tokens }).catch((error: unknown) => {
      throw new CliError({ message: formatError(error), exitCode: error instanceof TypeError ? 2 : 1, command: "ui" });
    });
    io.stdout.write(`statek ui: serving ${ui.url}${tokens.length ? ` (tokens: ${tokens.map((token) => token.name).join(", ")})` : " (local only, no token)"}\n`);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await ui.close();
    io.stdout.write("statek ui: stopped\n");
    return 0;
  } finally {
    await statek.close();
    await store.close();
  }
}
