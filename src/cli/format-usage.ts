/**
 * @module
 * The help texts, built from the commands' declarations so `--help` never drifts from what is parsed.
 */
import type { Command } from "./command.ts";

/** `statek show <id> [--json] [--store PATH]`: the command's synopsis. */
export function formatSynopsis(command: Command): string {
  const parts = ["statek", command.name, ...command.arguments.map((argument) => `<${argument.name}>`)];
  if (command.optionalArgument) parts.push(`[${command.optionalArgument.name}]`);
  for (const [name, option] of Object.entries(command.options)) {
    if (name === "help") continue;
    const value = option.multiple ? ` ${option.valueName ?? "VALUE"} …` : ` ${option.valueName ?? "VALUE"}`;
    parts.push(option.type === "string" ? `[--${name}${value}]` : `[--${name}]`);
  }
  return parts.join(" ");
}

/** Terms longer than this get their description on the next line, as git's help does. */
const MAX_TERM_WIDTH = 28;

/**
 * Two columns, the descriptions aligned two spaces after the longest term (up to {@link MAX_TERM_WIDTH}); a
 * longer term stands on its own line with its description below, in the same column.
 */
export function formatColumns(rows: ReadonlyArray<readonly [term: string, description: string]>): string[] {
  const width = Math.min(MAX_TERM_WIDTH, Math.max(0, ...rows.map(([term]) => term.length))) + 2;
  const lines: string[] = [];
  for (const [term, description] of rows) {
    if (term.length + 2 > width) lines.push(`  ${term}`, `  ${" ".repeat(width)}${description}`);
    else lines.push(`  ${term.padEnd(width)}${description}`);
  }
  return lines;
}

/** The full `--help` text of one command. */
export function formatCommandHelp(command: Command): string {
  const lines = [`Usage: ${formatSynopsis(command)}`, "", command.description, ""];
  const positionals = [...command.arguments, ...(command.optionalArgument ? [command.optionalArgument] : [])];
  const options = Object.entries(command.options).map(([name, option]) =>
    [`${option.short ? `-${option.short}, ` : "    "}--${name}${option.type === "string" ? ` ${option.valueName ?? "VALUE"}` : ""}`, option.description] as const);
  // One column width for arguments and options, so the whole page lines up.
  const rows = formatColumns([...positionals.map((argument) => [argument.name, argument.description] as const), ...options]);
  if (positionals.length) lines.push("Arguments:", ...rows.slice(0, positionals.length), "");
  lines.push("Options:", ...rows.slice(positionals.length));
  lines.push("", "Examples:", ...command.examples.map((example) => `  ${example}`), "");
  return lines.join("\n");
}

/** The top-level help: what STATEK's CLI is and its commands. */
export function formatOverview(commands: readonly Command[]): string {
  return [
    "Usage: statek <command> [options]",
    "",
    "Run and inspect STATEK's durable agent jobs in a store.",
    "",
    "Commands:",
    ...formatColumns(commands.map((command) => [command.name, command.summary] as const)),
    "",
    "Options:",
    ...formatColumns([["-h, --help", "Show this help (after a command: that command's help)."], ["    --version", "Print the version of STATEK."]]),
    "",
    "Examples:",
    "  statek worker --agents ./agents.ts --concurrency 20",
    "  statek jobs --status FAILED",
    "  statek show 9aaf6273",
    "  statek help show",
    "",
  ].join("\n");
}
