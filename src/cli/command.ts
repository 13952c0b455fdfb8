/**
 * @module
 * The shape every CLI command has: what it is called, the options and arguments it takes (which also make
 * its `--help` text), and what it runs.
 */
import { DEFAULT_STORE_PATH } from "../store/open-store.ts";
import type { CliIo } from "./cli-io.ts";

/** One `--name` option of a command. */
export interface CommandOption {
  type: "string" | "boolean";
  /** A one-letter alias (`-h`). */
  short?: string;
  /** The value's placeholder in usage text (`S` in `--status S`). */
  valueName?: string;
  description: string;
  /** The option may be given several times; its value is then the list of what was given, in order. */
  multiple?: boolean;
}

/** One positional argument of a command. */
export interface CommandArgument {
  name: string;
  description: string;
}

/** What a command's `run` receives. */
export interface CommandInput {
  /** Option values by name; options not given are absent. */
  values: Record<string, string | boolean | string[] | undefined>;
  /** The positional arguments, one per declared argument. */
  positionals: string[];
  io: CliIo;
  /** Every command, for `help`. */
  commands: readonly Command[];
}

/** A CLI command. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** What the command does, for its `--help`. */
  description: string;
  /** Required positional arguments, in order. */
  arguments: readonly CommandArgument[];
  /** Optional trailing positional argument (`help [command]`). */
  optionalArgument?: CommandArgument;
  options: Readonly<Record<string, CommandOption>>;
  /** Example command lines. */
  examples: readonly string[];
  /** Runs the command; resolves to the exit code. */
  run(input: CommandInput): Promise<number>;
}

/** `--help`, which every command takes. */
export const HELP_OPTION: CommandOption = { type: "boolean", short: "h", description: "Show this help." };

/** `--store`, which every command that reads jobs takes. */
export const STORE_OPTION: CommandOption = {
  type: "string",
  valueName: "STORE",
  description: `A SQLite file or a postgres:// URL (default $STATEK_STORE, else ${DEFAULT_STORE_PATH}).`,
};

/** `--json`, for commands that can print machine-readable output. */
export const JSON_OPTION: CommandOption = { type: "boolean", description: "Print JSON instead of text." };

/** `--agents`, which every command that runs or submits jobs takes. */
export const AGENTS_OPTION: CommandOption = {
  type: "string",
  valueName: "MODULE",
  description: "A module exporting the agents (by name, as an `agents` array, or as its default export; default $STATEK_AGENTS).",
};
