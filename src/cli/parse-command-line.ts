/**
 * @module
 * Parses one command's arguments with `node:util` `parseArgs`, and reports every mistake as a usage error
 * naming the option or argument, in our words rather than parseArgs' (exit code 2).
 */
import { parseArgs } from "node:util";
import { CliError } from "../errors/cli-error.ts";
import { closestName } from "./closest-name.ts";
import type { Command } from "./command.ts";

/** A parsed command line. */
export interface ParsedCommandLine {
  /** True when `--help` or `-h` was given: the caller prints the command's help and ignores the rest. */
  help: boolean;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses `args` (what follows the command name) against the command's options and arguments. */
export function parseCommandLine(command: Command, args: readonly string[]): ParsedCommandLine {
  const options = Object.fromEntries(
    Object.entries(command.options).map(([name, option]) => [name, option.short ? { type: option.type, short: option.short } : { type: option.type }]),
  );
  // Non-strict, with tokens: we check each token ourselves so every message names what was wrong.
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const usageError = (message: string) => new CliError({ message, exitCode: 2, command: command.name });
  const values: ParsedCommandLine["values"] = {};
  const positionals: string[] = [];
  if (tokens.some((token) => token.kind === "option" && token.name === "help" && "help" in command.options)) {
    return { help: true, values, positionals };
  }
  for (const token of tokens) {
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    const option = command.options[token.name];
    if (!option) {
      const near = token.rawName.startsWith("--") ? closestName(token.name, Object.keys(command.options)) : undefined;
      throw usageError(`unknown option '${token.rawName}' for 'statek ${command.name}'${near ? `; did you mean '--${near}'?` : ""}`);
    }
    if (option.type === "boolean") {
      if (token.inlineValue) throw usageError(`option '--${token.name}' takes no value`);
      values[token.name] = true;
      continue;
    }
    const value = token.value;
    if (value === undefined || (!token.inlineValue && value.startsWith("-") && value !== "-")) {
      throw usageError(`option '--${token.name}' needs a value (${token.rawName} ${option.valueName ?? "VALUE"})`);
    }
    if (option.multiple) {
      const given = values[token.name];
      values[token.name] = [...(Array.isArray(given) ? given : []), value];
    } else {
      values[token.name] = value;
    }
  }
  const expected = command.arguments.length + (command.optionalArgument ? 1 : 0);
  if (positionals.length < command.arguments.length) {
    throw usageError(`missing <${command.arguments[positionals.length]!.name}>`);
  }
  if (positionals.length > expected) throw usageError(`unexpected argument '${positionals[expected]}'`);
  return { help: false, values, positionals };
}
