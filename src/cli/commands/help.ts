/**
 * @module
 * `statek help [command]`: the overview, or one command's help.
 */
import { CliError } from "../../errors/cli-error.ts";
import { HELP_OPTION, type Command, type CommandInput } from "../command.ts";
import { formatCommandHelp, formatOverview } from "../format-usage.ts";

/** `statek help [command]`. */
export const helpCommand: Command = {
  name: "help",
  summary: "Show help for the CLI or for one command.",
  description: "Prints the list of commands, or the usage, options and examples of one command.",
  arguments: [],
  optionalArgument: { name: "command", description: "The command to explain." },
  options: { help: HELP_OPTION },
  examples: ["statek help", "statek help show"],
  run: runHelp,
};

async function runHelp({ positionals, io, commands }: CommandInput): Promise<number> {
  const name = positionals[0];
  if (name === undefined) {
    io.stdout.write(formatOverview(commands));
    return 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) throw new CliError({ message: `unknown command '${name}'`, exitCode: 2 });
  io.stdout.write(formatCommandHelp(command));
  return 0;
}
