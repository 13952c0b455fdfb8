/**
 * @module
 * Definition folders read by `Statek.open({ promptDir, warmupDir })`: `<promptDir>/<role>.md` is a prompt
 * definition file (metadata lines, `# System Prompt`, the prompt) and `<warmupDir>/<role>.ts` warmup code (blocks
 * split by `// ----------`, `// statek:` directives), each applied to the registered agent of that role. Prompts
 * and warmup can then change without a code change. Every file is read and checked when the folders are read —
 * a problem is an error naming the file and line (a warmup block that does not compile included) — and a file
 * whose role no agent of this process has is kept for an agent registered later.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { InvalidPromptFileError } from "../errors/invalid-prompt-file-error.ts";
import { compileCell } from "../workspace/cell-compiler.ts";
import { parsePromptFile, type PromptDefinition } from "./prompt-file.ts";
import { parseWarmupText, type WarmupBlock } from "./warmup-blocks.ts";

/** The definition files of every role, read and checked. */
export interface DefinitionFiles {
  prompts: ReadonlyMap<string, PromptDefinition>;
  warmups: ReadonlyMap<string, readonly WarmupBlock[]>;
}

/** The files of `folder` with `extension`, or an error naming the folder. */
function filesOf(folder: string, extension: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile() && extname(entry.name) === extension)
      .map((entry) => join(folder, entry.name))
      .sort();
  } catch (error) {
    throw new InvalidPromptFileError({ file: folder, reason: `cannot read the folder: ${(error as Error).message}`, cause: error });
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new InvalidPromptFileError({ file, reason: `cannot read the file: ${(error as Error).message}`, cause: error });
  }
}

/**
 * Reads `promptDir` (`*.md`) and `warmupDir` (`*.ts`); a prompt file's role is its `# ROLE:` line or its name,
 * a warmup file's its name.
 *
 * @throws {InvalidPromptFileError} Naming the file (and line) of the first problem.
 */
export function readDefinitionFiles(folders: { promptDir?: string | undefined; warmupDir?: string | undefined }): DefinitionFiles {
  const prompts = new Map<string, PromptDefinition>();
  const warmups = new Map<string, readonly WarmupBlock[]>();
  if (folders.promptDir !== undefined) {
    for (const file of filesOf(folders.promptDir, ".md")) {
      const definition = parsePromptFile(read(file), file);
      if (prompts.has(definition.role)) throw new InvalidPromptFileError({ file, reason: `a second prompt file for role '${definition.role}'` });
      prompts.set(definition.role, definition);
    }
  }
  if (folders.warmupDir !== undefined) {
    for (const file of filesOf(folders.warmupDir, ".ts")) {
      const fail = (line: number, reason: string): never => {
        throw new InvalidPromptFileError({ file, line, reason });
      };
      const parsed = parseWarmupText(read(file), fail);
      for (const { block, line } of parsed) {
        if (!block.code) continue;
        const compiled = compileCell(block.code);
        if (compiled.kind !== "error") continue;
        // The compiler says `(line:column)` within the block; the file's line is the block's start plus that.
        const where = /\((\d+):(\d+)\)/.exec(compiled.error.message);
        const at = where ? line + Number(where[1]) - 1 : line;
        fail(at, `${compiled.error.name}: ${compiled.error.message.replace(/\s*\(\d+:\d+\)\s*$/, "")}`);
      }
      warmups.set(basename(file, ".ts"), parsed.map(({ block }) => block));
    }
  }
  return { prompts, warmups };
}
