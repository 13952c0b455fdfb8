import { StatekError } from "./statek-error.ts";

/**
 * A file that defines part of an agent cannot be used: a prompt definition file (`Agent.fromPromptFile`,
 * `Statek.open({ promptDir })`), a warmup file (`warmupDir`), an example or a document. The message names the
 * file and, when the problem is on one line, that line.
 *
 * @example
 * ```ts
 * Agent.fromPromptFile("prompts/assistant.md");
 * // InvalidPromptFileError: prompts/assistant.md:2: unknown CHAT_STYLE 'MARKDWN' (expected CONSOLE, MARKDOWN, MD_DIALOG or DIRECT)
 * ```
 */
export class InvalidPromptFileError extends StatekError {
  /** The file as given. */
  readonly file: string;
  /** The 1-based line the problem is on, when it is on one. */
  readonly line: number | undefined;
  readonly reason: string;

  constructor({ file, line, reason, cause }: { file: string; line?: number; reason: string; cause?: unknown }) {
    super({ name: "InvalidPromptFileError", message: `${file}${line === undefined ? "" : `:${line}`}: ${reason}`, cause });
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}
