/**
 * @module
 * Per-audience wording: a text that starts with `VARIANTS/` holds several versions, each
 * introduced by `/NAME:` (NAME: up to 8 letters or digits, case-insensitive; empty for the default):
 *
 * ```text
 * VARIANTS/:Moves a meeting (checks the user's permission first)./TOOL:Move a meeting. Ask the user first.
 * ```
 *
 * Everything the model reads (prompt placeholders, `brief`, `docstr`, provider payloads) takes the `tool`
 * variant, falling back to the default; other readers take the default. Any other text is itself in every
 * variant. Variant texts are used as written (not trimmed), so `/:` … `/TOOL:` can be split across lines.
 */

/** The variant the model reads. */
export const MODEL_VARIANT = "tool";

const DELIMITER = /\/([A-Za-z0-9]{0,8}):/g;

/**
 * The variants of a text by lower-cased name (`""` is the default), or `undefined` when the text is not a
 * multi-variant text (it does not start with `VARIANTS/`, or has no `/NAME:` delimiter).
 */
export function parseVariants(text: string): Record<string, string> | undefined {
  const start = text.trimStart();
  if (!start.startsWith("VARIANTS/")) return undefined;
  const body = start.slice("VARIANTS".length);
  const matches = [...body.matchAll(DELIMITER)];
  if (matches.length === 0) return undefined;
  const variants: Record<string, string> = {};
  matches.forEach((match, index) => {
    const from = match.index! + match[0].length;
    const to = index + 1 < matches.length ? matches[index + 1]!.index! : body.length;
    variants[match[1]!.toLowerCase()] = body.slice(from, to);
  });
  return variants;
}

/**
 * The text for one audience: a plain text itself; a multi-variant text's variant `name` (case-insensitive;
 * `undefined` or `""` for the default), else its default, else `""`.
 */
export function textVariant(text: string, name?: string): string {
  const variants = parseVariants(text);
  if (!variants) return text;
  const key = (name ?? "").toLowerCase();
  return variants[key] ?? variants[""] ?? "";
}

/**
 * The model's variant of `text` (see {@link MODEL_VARIANT}), trimmed; `undefined` stays `undefined`. A text
 * that does not start with `VARIANTS/` may still end in one: `Base.\n\nVARIANTS/:Detail./TOOL:Tool detail.`
 * reads `Base.\n\nTool detail.` to the model (the brief and the rest are selected separately).
 */
export function forModel(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const whole = text.trim();
  const split = /\n[ \t]*\n/.exec(whole);
  if (whole.startsWith("VARIANTS/") || !split) return textVariant(whole, MODEL_VARIANT).trim();
  const brief = textVariant(whole.slice(0, split.index), MODEL_VARIANT).trim();
  const rest = textVariant(whole.slice(split.index + split[0].length).trimStart(), MODEL_VARIANT).trim();
  return [brief, rest].filter(Boolean).join("\n\n");
}
