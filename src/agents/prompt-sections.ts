/**
 * @module
 * Prompt sections limited to difficulties. A system prompt is an intro followed by sections, each started by a
 * marker line: `--- Title ---`, `*** Title ***`, a Markdown heading (`## Title` … `###### Title`), or an XML box
 * whose opening tag carries `difficulty="…"` (or `target_difficulties="…"`). A title may start with levels —
 * `--- MH: Rules for hard cases ---`, `## high: Details` — and the section (up to the next marker) is then shown
 * only at those levels; so is an XML box with the attribute, together with any text after it up to the next
 * marker. A prefix that is not a set of levels (`Note: …`) is part of the title. Markers inside fenced code are
 * text.
 *
 * What the model is shown keeps the prompt as written: limited sections at other levels are left out, and the
 * level prefixes and attributes of the kept ones are removed. A prompt with no limited section is returned as
 * it is.
 */
import { parseDifficultySet, type Difficulty } from "./difficulty.ts";

/** One line of the prompt and what it is. */
interface Line {
  text: string;
  /** Set on a marker line: the levels it is limited to (`undefined`: every level) and the text to show. */
  marker?: { levels: Set<Difficulty> | undefined; shown: string };
}

const DASHED = /^(\s*)(-{3,}|\*{3,})\s*(.*?)\s*(\2)\s*$/;
const HEADING = /^(\s*#{2,6}\s+)(.*)$/;
const XML_OPEN = /^(\s*<([A-Za-z_][\w.-]*)\b)([^>]*?)\s(?:difficulty|target_difficulties)\s*=\s*"([^"]*)"([^>]*>.*)$/;

/** The levels a title's prefix names, and the title without it (`MH: Title` → MH, `Title`). */
function titleLevels(title: string): { levels: Set<Difficulty> | undefined; title: string } {
  const colon = title.indexOf(":");
  if (colon > 0) {
    const levels = parseDifficultySet(title.slice(0, colon));
    if (levels) return { levels, title: title.slice(colon + 1).trim() };
  }
  return { levels: undefined, title };
}

/** The prompt's lines, markers recognised. */
function readLines(prompt: string): Line[] {
  let fenced = false;
  return prompt.split("\n").map((text): Line => {
    if (/^\s*(```|~~~)/.test(text)) {
      fenced = !fenced;
      return { text };
    }
    if (fenced) return { text };
    const dashed = DASHED.exec(text);
    if (dashed) {
      const { levels, title } = titleLevels(dashed[3]!);
      return { text, marker: { levels, shown: levels ? `${dashed[1]}${dashed[2]} ${title} ${dashed[4]}` : text } };
    }
    const heading = HEADING.exec(text);
    if (heading) {
      const { levels, title } = titleLevels(heading[2]!);
      return { text, marker: { levels, shown: levels ? `${heading[1]}${title}` : text } };
    }
    const xml = XML_OPEN.exec(text);
    if (xml) {
      const levels = parseDifficultySet(xml[4]!);
      // An attribute that names no levels leaves the box shown everywhere, as written.
      return { text, marker: { levels, shown: levels ? `${xml[1]}${xml[3]}${xml[5]}` : text } };
    }
    return { text };
  });
}

/** True when the prompt has a section limited to some levels. */
export function hasDifficultySections(prompt: string): boolean {
  return readLines(prompt).some((line) => line.marker?.levels !== undefined);
}

/**
 * The prompt as the model sees it at `level`: limited sections of other levels left out, the prefixes and
 * attributes of the rest removed.
 *
 * @example
 * ```ts
 * promptForDifficulty("Be brief.\n--- H: Hard cases ---\nCheck twice.", "M"); // "Be brief."
 * promptForDifficulty("Be brief.\n--- H: Hard cases ---\nCheck twice.", "H"); // "Be brief.\n--- Hard cases ---\nCheck twice."
 * ```
 */
export function promptForDifficulty(prompt: string, level: Difficulty): string {
  const lines = readLines(prompt);
  if (!lines.some((line) => line.marker?.levels !== undefined)) return prompt;
  const kept: string[] = [];
  let showing = true;
  for (const line of lines) {
    if (line.marker) {
      showing = line.marker.levels === undefined || line.marker.levels.has(level);
      if (showing) kept.push(line.marker.shown);
    } else if (showing) {
      kept.push(line.text);
    }
  }
  // A left-out section at the end leaves the blank line that came before it.
  while (kept.length && kept[kept.length - 1]!.trim() === "") kept.pop();
  return kept.join("\n");
}
