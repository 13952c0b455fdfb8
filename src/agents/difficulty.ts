/**
 * @module
 * A job's difficulty (`L` < `M` < `H`): which model a turn uses and which prompt sections the model is shown.
 * It starts at the job's `DEFAULT_DIFFICULTY` (else `M`) and only rises — `panic()` raises it one level, and
 * showing an example of a harder level raises it to that level.
 *
 * `MODEL` may map levels to models: `L:openai/gpt-5-nano,MH:openai/gpt-5-mini` (each label a run of the letters
 * L, M, H; every level exactly once). Levels are also written as words (`low`, `medium`, `high`), in prompt
 * section prefixes (`--- MH: Title ---`, `high: Details`) and attributes (`difficulty="H"`).
 */

/** The levels, easiest first. */
export const DIFFICULTIES = ["L", "M", "H"] as const;

/** A difficulty level. */
export type Difficulty = (typeof DIFFICULTIES)[number];

/** The level a job starts at when nothing says otherwise. */
export const DEFAULT_DIFFICULTY: Difficulty = "M";

const WORDS: Readonly<Record<string, Difficulty>> = { l: "L", low: "L", m: "M", medium: "M", h: "H", high: "H" };

/** True for `L`, `M` or `H`. */
export function isDifficulty(value: unknown): value is Difficulty {
  return value === "L" || value === "M" || value === "H";
}

/** One level written as a letter or a word (`L`, `low`, `Medium`), or `undefined`. */
export function parseDifficulty(text: string): Difficulty | undefined {
  return WORDS[text.trim().toLowerCase()];
}

/**
 * A set of levels as a prompt section or example writes it: compact letters (`MH`, `LMH`) or words and letters
 * separated by spaces, commas, `|` or `/` (`medium/high`, `L, H`). `undefined` when it is not one.
 */
export function parseDifficultySet(text: string): Set<Difficulty> | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (/^[LMH]+$/i.test(trimmed)) return new Set([...trimmed.toUpperCase()] as Difficulty[]);
  const levels = new Set<Difficulty>();
  for (const part of trimmed.split(/[\s,|/]+/)) {
    const level = parseDifficulty(part);
    if (!level) return undefined;
    levels.add(level);
  }
  return levels;
}

/** The higher of two levels. */
export function higherDifficulty(a: Difficulty, b: Difficulty): Difficulty {
  return DIFFICULTIES.indexOf(a) >= DIFFICULTIES.indexOf(b) ? a : b;
}

/** The level above `level`; a `RangeError` above `H`. */
export function raiseDifficulty(level: Difficulty): Difficulty {
  const index = DIFFICULTIES.indexOf(level);
  if (index === DIFFICULTIES.length - 1) throw new RangeError("the job is already at the highest difficulty (H); panic() cannot raise it further");
  return DIFFICULTIES[index + 1]!;
}

/** A job's starting difficulty from its `DEFAULT_DIFFICULTY` setting; a `TypeError` names a bad value. */
export function defaultDifficultyOf(metadata: Readonly<Record<string, unknown>>, label = "metadata"): Difficulty {
  const value = metadata.DEFAULT_DIFFICULTY;
  if (value === undefined || value === null || value === "") return DEFAULT_DIFFICULTY;
  const level = typeof value === "string" ? parseDifficulty(value) : undefined;
  if (!level) throw new TypeError(`${label}: DEFAULT_DIFFICULTY must be L, M or H (or low, medium, high), got ${JSON.stringify(value)}`);
  return level;
}

/** A job's difficulty now: the level its state holds (raised during the job), else its starting level. */
export function jobDifficulty(state: Readonly<Record<string, unknown>>, metadata: Readonly<Record<string, unknown>>): Difficulty {
  const stored = state.difficulty;
  if (isDifficulty(stored)) return stored;
  try {
    return defaultDifficultyOf(metadata);
  } catch {
    // Checked when the job was submitted; a setting changed since reads as the default.
    return DEFAULT_DIFFICULTY;
  }
}

/** A `MODEL` setting: one model string, or one per level. */
export type ModelChoice = { kind: "single"; model: string } | { kind: "mapping"; models: Readonly<Record<Difficulty, string>> };

const LABEL = /^\s*([LMH]+)\s*:(.*)$/i;

/**
 * Reads a `MODEL` setting. A mapping (`L:a,MH:b`) names every level exactly once; a `TypeError` says what is
 * wrong with one that does not (a level twice or missing, an entry without a label, an empty model).
 *
 * @example
 * ```ts
 * parseModelChoice("L:openai/gpt-5-nano,MH:openai/gpt-5-mini");
 * // { kind: "mapping", models: { L: "openai/gpt-5-nano", M: "openai/gpt-5-mini", H: "openai/gpt-5-mini" } }
 * ```
 */
export function parseModelChoice(model: string): ModelChoice {
  const entries = model.split(",");
  const labelled = entries.map((entry) => LABEL.exec(entry));
  if (labelled.every((match) => match === null)) return { kind: "single", model };
  const models: Partial<Record<Difficulty, string>> = {};
  entries.forEach((entry, index) => {
    const match = labelled[index];
    if (!match) throw new TypeError(`MODEL ${JSON.stringify(model)}: the entry ${JSON.stringify(entry.trim())} has no level label (write every entry as LEVELS:model, e.g. L:openai/gpt-5-nano,MH:openai/gpt-5-mini)`);
    const name = match[2]!.trim();
    if (!name) throw new TypeError(`MODEL ${JSON.stringify(model)}: the entry for ${match[1]!.toUpperCase()} names no model`);
    for (const letter of match[1]!.toUpperCase() as Iterable<Difficulty>) {
      if (models[letter] !== undefined) throw new TypeError(`MODEL ${JSON.stringify(model)}: level ${letter} is given twice (every level exactly once)`);
      models[letter] = name;
    }
  });
  const missing = DIFFICULTIES.filter((level) => models[level] === undefined);
  if (missing.length) throw new TypeError(`MODEL ${JSON.stringify(model)}: no model for level ${missing.join(", ")} (every level L, M, H exactly once)`);
  return { kind: "mapping", models: models as Record<Difficulty, string> };
}

/** The model string a turn at `level` uses. */
export function modelFor(choice: ModelChoice, level: Difficulty): string {
  return choice.kind === "single" ? choice.model : choice.models[level];
}
