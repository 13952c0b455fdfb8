/**
 * @module
 * The `statek` command line: run the jobs in a store as a service, submit jobs and push messages, inspect
 * jobs. `bin/statek.js` calls
 * {@link main} with the process's arguments; tests and embedders call it with their own streams.
 *
 * Exit codes: `0` success, `1` the command could not do its work (no store, no such job), `2` it was
 * called wrongly (unknown command or option, missing argument).
 */
import { CliError } from "../errors/cli-error.ts";
import { PROCESS_IO, type CliIo } from "./cli-io.ts";
import type { Command } from "./command.ts";
import { agentsCommand } from "./commands/agents.ts";
import { approvalsCommand } from "./commands/approvals.ts";
import { cancelCommand } from "./commands/cancel.ts";
import { approveCommand, denyCommand } from "./commands/decide-approval.ts";
import { helpCommand } from "./commands/help.ts";
import { forkCommand } from "./commands/fork.ts";
import { retryCommand } from "./commands/retry.ts";
import { jobsCommand } from "./commands/jobs.ts";
import { mcpCommand } from "./commands/mcp.ts";
import { pushCommand } from "./commands/push.ts";
import { showCommand } from "./commands/show.ts";
import { submitCommand } from "./commands/submit.ts";
import { uiCommand } from "./commands/ui.ts";
import { workerCommand } from "./commands/worker.ts";
import { formatCommandHelp, formatOverview } from "./format-usage.ts";
import { packageVersion } from "./package-version.ts";
import { parseCommandLine } from "./parse-command-line.ts";
import { formatError } from "../tools/call-tool.ts";
import { closestName } from "./closest-name.ts";

/** The commands, in the order `statek --help` lists them. */
export const COMMANDS: readonly Command[] = [workerCommand, submitCommand, pushCommand, jobsCommand, showCommand, approvalsCommand, approveCommand, denyCommand, cancelCommand, retryCommand, forkCommand, agentsCommand, uiCommand, mcpCommand, helpCommand];

/**
 * Runs one command line and resolves to its exit code. Never throws: every failure is reported on `stderr`.
 *
 * @param argv The arguments after the program name (`process.argv.slice(2)`).
 * @param io Where to write. @default the process's stdout and stderr
 * @example
 * ```ts
 * process.exitCode = await main(["jobs", "--status", "FAILED"]);
 * ```
 */
export async function main(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`statek: ${error.message}\n`);
      if (error.exitCode === 2) {
        const hint = error.command ? `statek ${error.command} --help` : "statek --help";
        io.stderr.write(`Run '${hint}' for usage.\n`);
      }
      return error.exitCode;
    }
    io.stderr.write(`statek: ${formatError(error)}\n`);
    return 1;
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(formatOverview(COMMANDS));
    return 2;
  }
  if (name === "--help" || name === "-h") {
    io.stdout.write(formatOverview(COMMANDS));
    return 0;
  }
  if (name === "--version") {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (name.startsWith("-")) throw new CliError({ message: unknownTopLevelOption(name), exitCode: 2 });
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    const names = COMMANDS.map((known) => known.name);
    const near = closestName(name, names);
    throw new CliError({ message: `unknown command '${name}'${near ? `; did you mean 'statek ${near}'?` : ""} (commands: ${names.join(", ")})`, exitCode: 2 });
  }
  const parsed = parseCommandLine(command, rest);
  if (parsed.help) {
    io.stdout.write(formatCommandHelp(command));
    return 0;
  }
  return command.run({ values: parsed.values, positionals: parsed.positionals, io, commands: COMMANDS });
}

/** What to say of an option given before any command: the top-level option meant, or commands that take it. */
function unknownTopLevelOption(name: string): string {
  const near = closestName(name.replace(/^-+/, ""), ["help", "version"]);
  if (near !== undefined || /^-[vV]$/.test(name)) return `unknown option '${name}'; did you mean 'statek --${near ?? "version"}'?`;
  const option = name.replace(/^--/, "").split("=")[0]!;
  const takers = COMMANDS.filter((command) => name.startsWith("--") && option in command.options).map((command) => command.name);
  if (takers.length) return `unknown option '${name}' before a command; options go after it, as in 'statek ${takers[0]} ${name}' (commands that take it: ${takers.join(", ")})`;
  return `unknown option '${name}' (the options before a command are --help and --version)`;
}
