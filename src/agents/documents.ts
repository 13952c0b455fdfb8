/**
 * @module
 * Documents an agent's model can read (`listDocuments`, `showDocument`): a folder of Markdown or text files
 * (`new Agent({ documents: "./kb" })`) or objects given in code. A document file starts with front matter:
 *
 * ```md
 * ---
 * topic: Billing
 * title: Refund policy
 * audience: support_agent, billing_agent
 * order: 2
 * ---
 * Refunds are paid within 14 days …
 * ```
 *
 * `topic` groups documents (default: the folder the file is in, else `General`); `title` names it (default: a `# heading`
 * on its first line, else the file name); `audience` lists the roles that may read it (default: every role);
 * `order` sorts it within its topic. Topics are numbered in the order first met (files in sorted order), and
 * documents — those the job's role may read — from 0 in topic order, then `order`, then title: the ids
 * `showDocument` takes.
 */
import { readFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { InvalidPromptFileError } from "../errors/invalid-prompt-file-error.ts";
import { filesUnder } from "./examples.ts";

/** A document as given in code. */
export interface DocumentDefinition {
  topic?: string;
  title: string;
  /** Roles that may read it. @default every role */
  audience?: readonly string[];
  /** Sort key within its topic. @default 0 */
  order?: number;
  body: string;
}

/** A document as the agent keeps it. */
export interface AgentDocument {
  topic: string;
  title: string;
  audience: readonly string[] | undefined;
  order: number;
  body: string;
  /** The file it came from, when it came from one. */
  file?: string;
}

/** Where an agent's documents come from: a folder, or definitions. */
export type DocumentsSource = string | readonly DocumentDefinition[];

const FRONT_KEY = /^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$/;

/** Parses a document file's text; `file` names it in errors and gives the defaults, `folder` the topic's. */
export function parseDocument(text: string, file: string, folder?: string): AgentDocument {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const fields: Record<string, string> = {};
  let bodyStart = 0;
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---");
    if (end < 0) throw new InvalidPromptFileError({ file, line: 1, reason: "the front matter opened here is never closed with ---" });
    for (let index = 1; index < end; index++) {
      const line = lines[index]!;
      if (!line.trim() || line.trim().startsWith("#")) continue;
      const match = FRONT_KEY.exec(line.trim());
      if (!match) throw new InvalidPromptFileError({ file, line: index + 1, reason: `expected "key: value" in the front matter, got ${JSON.stringify(line.trim())}` });
      fields[match[1]!.toLowerCase()] = match[2]!.replace(/^(["'])(.*)\1$/, "$2");
    }
    bodyStart = end + 1;
  }
  let body = lines.slice(bodyStart).join("\n").trim();
  const order = fields.order ?? fields.ord_no;
  if (order !== undefined && !Number.isFinite(Number(order))) {
    const line = lines.findIndex((entry) => /^\s*(order|ord_no)\s*:/i.test(entry)) + 1;
    throw new InvalidPromptFileError({ file, line, reason: `order must be a number, got '${order}'` });
  }
  const firstLine = body.split("\n", 1)[0]!;
  const heading = /^#\s+(.+)$/.exec(firstLine)?.[1]?.trim();
  // A title taken from the body's first line is not printed twice.
  if (!fields.title?.trim() && heading) body = body.slice(firstLine.length).trim();
  const place = folder ? relative(folder, dirname(file)) : "";
  return {
    topic: fields.topic?.trim() || place.split(/[\\/]/).filter(Boolean).join(" / ") || "General",
    title: fields.title?.trim() || heading || file.split(/[\\/]/).pop()!.replace(/\.[^.]+$/, ""),
    audience: fields.audience ? fields.audience.split(",").map((role) => role.trim()).filter(Boolean) : undefined,
    order: order === undefined ? 0 : Number(order),
    body,
    file,
  };
}

/**
 * An agent's documents, sorted (topics in the order first met, then `order`, then title).
 *
 * @throws {InvalidPromptFileError} For a file that cannot be read or parsed. @throws {TypeError} For a bad definition.
 */
export function loadDocuments(source: DocumentsSource | undefined, label: string): AgentDocument[] {
  if (source === undefined) return [];
  const found: AgentDocument[] = [];
  if (typeof source === "string") {
    for (const file of filesUnder(source, [".md", ".txt"])) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        throw new InvalidPromptFileError({ file, reason: `cannot read the document: ${(error as Error).message}`, cause: error });
      }
      found.push(parseDocument(text, file, source));
    }
  } else if (Array.isArray(source)) {
    source.forEach((definition, index) => found.push(checkDocument(definition, `${label}: documents[${index}]`)));
  } else {
    throw new TypeError(`${label}: documents must be a folder path or an array of documents`);
  }
  const topics: string[] = [];
  for (const document of found) if (!topics.includes(document.topic)) topics.push(document.topic);
  return found
    .sort((a, b) => topics.indexOf(a.topic) - topics.indexOf(b.topic) || a.order - b.order || a.title.localeCompare(b.title))
    .map((document) => Object.freeze(document));
}

function checkDocument(definition: DocumentDefinition, label: string): AgentDocument {
  if (typeof definition !== "object" || definition === null) throw new TypeError(`${label} must be an object with title and body`);
  if (typeof definition.title !== "string" || !definition.title.trim()) throw new TypeError(`${label}: title must be a non-empty string`);
  if (typeof definition.body !== "string") throw new TypeError(`${label}: body must be a string`);
  if (definition.topic !== undefined && typeof definition.topic !== "string") throw new TypeError(`${label}: topic must be a string`);
  if (definition.order !== undefined && !Number.isFinite(definition.order)) throw new TypeError(`${label}: order must be a number`);
  if (definition.audience !== undefined && (!Array.isArray(definition.audience) || definition.audience.some((role) => typeof role !== "string"))) {
    throw new TypeError(`${label}: audience must be a list of roles`);
  }
  return {
    topic: definition.topic?.trim() || "General",
    title: definition.title.trim(),
    audience: definition.audience ? [...definition.audience] : undefined,
    order: definition.order ?? 0,
    body: definition.body.trim(),
  };
}

/** The documents `role` may read, in order. */
export function documentsFor(documents: readonly AgentDocument[], role: string): AgentDocument[] {
  return documents.filter((document) => document.audience === undefined || document.audience.includes(role));
}

/** How a lookup by name went: the index found, or why none was. */
export type Lookup = { index: number } | { problem: string };

/**
 * Finds `key` among `names`: an index (a number, or digits), then an exact name (ignoring case), then the one
 * name containing it, then the one name at least 90% similar. A miss says why and lists the closest names.
 */
export function lookupName(key: unknown, names: readonly string[], what: string): Lookup {
  if (typeof key === "number" || (typeof key === "string" && /^\s*\d+\s*$/.test(key))) {
    const index = Number(key);
    return Number.isInteger(index) && index >= 0 && index < names.length ? { index } : { problem: `no ${what} #${key} (ids are 0 to ${names.length - 1})` };
  }
  if (typeof key !== "string" || !key.trim()) return { problem: `expected the id or the name of a ${what}` };
  const wanted = key.trim().toLowerCase();
  const lower = names.map((name) => name.toLowerCase());
  const exact = lower.indexOf(wanted);
  if (exact >= 0) return { index: exact };
  const containing = lower.flatMap((name, index) => (name.includes(wanted) ? [index] : []));
  if (containing.length === 1) return { index: containing[0]! };
  if (containing.length > 1) {
    return { problem: `'${key.trim()}' matches several: ${containing.map((index) => `${names[index]} (#${index})`).join(", ")}` };
  }
  // A long key is no title anyone meant to misspell: comparing it with every name would only cost time.
  if (wanted.length > 200) return { problem: `no ${what} named '${key.trim().slice(0, 60)}…'` };
  const scored = lower.map((name, index) => ({ index, score: similarity(wanted, name.slice(0, 400)) })).sort((a, b) => b.score - a.score);
  if (scored[0] && scored[0].score >= 0.9 && (scored[1]?.score ?? 0) < scored[0].score) return { index: scored[0].index };
  const close = scored.filter((entry) => entry.score >= 0.4).slice(0, 5);
  return {
    problem: `no ${what} named '${key.trim()}'` + (close.length ? `; close: ${close.map((entry) => `${names[entry.index]} (#${entry.index})`).join(", ")}` : ""),
  };
}

/** 1 − (edit distance / longer length): 1 for equal texts, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  // Two rows of the edit-distance table; names are short.
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return 1 - previous[b.length]! / longer;
}
