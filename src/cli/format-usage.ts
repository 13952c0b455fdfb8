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

/** The full `--help` text of one command. */
export function formatCommandHelp(command: Command): string {
  const lines = [`Usage: ${formatSynopsis(command)}`, "", command.description, ""];
  const positionals = [...command.arguments, ...(command.optionalArgument ? [command.optionalArgument] : [])];
  if (positionals.length) {
    lines.push("Arguments:");
    for (const argument of positionals) lines.push(`  ${argument.name.padEnd(18)}${argument.description}`);
    lines.push("");
  }
  lines.push("Options:");
  for (const [name, option] of Object.entries(command.options)) {
    const flag = `${option.short ? `-${option.short}, ` : "    "}--${name}${option.type === "string" ? ` ${option.valueName ?? "VALUE"}` : ""}`;
    lines.push(`  ${flag.padEnd(18)}${option.description}`);
  }
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
    ...commands.map((command) => `  ${command.name.padEnd(18)}${command.summary}`),
    "",
    "Options:",
    "  -h, --help        Show this help (after a command: that command's help).",
    "      --version     Print the version of STATEK.",
    "",
    "Examples:",
    "  statek worker --agents ./agents.ts --concurrency 20",
    "  statek jobs --status FAILED",
    "  statek show 9aaf6273",
    "  statek help show",
    "",
  ].join("\n");
}
