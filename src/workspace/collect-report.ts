/**
 * @module
 * The report a guest's `collect` sends (`guest/guest-variables.ts`): a line of JSON, then the texts of the
 * variables it encoded, one after another as they are.
 *
 * The header is `{ problems, order?, encoded, regroup, texts: [[name, length], …] }`; each text is the next
 * `length` characters after the newline. Writing the texts as strings inside one JSON document escaped each of
 * them in the guest (a tenth of encoding a list of numbers in QuickJS) and made the host scan and parse every
 * one twice. The report is untrusted like anything from the guest: {@link readCollectReport} checks its shape
 * and that the lengths add up to exactly the rest of it; each text is decoded and checked before it is stored.
 */
import { parseUntrusted } from "./membrane/untrusted-json.ts";
import type { Collected } from "./stored-rows.ts";

const UNREADABLE = "the workspace reported its variables in an unreadable form";

/** Reads a collect report; throws a `TypeError` naming what is wrong with one that is malformed. */
export function readCollectReport(report: string): Collected {
  const end = report.indexOf("\n");
  if (end < 0) throw new TypeError(`${UNREADABLE} (no header)`);
  const header = parseUntrusted(report.slice(0, end)) as Record<string, unknown> | null;
  if (header === null || typeof header !== "object" || Array.isArray(header)) throw new TypeError(`${UNREADABLE} (the header is not an object)`);
  const { texts: lengths, problems, order, encoded, regroup } = header;
  if (!Array.isArray(lengths) || !Array.isArray(problems) || (order !== undefined && !Array.isArray(order))) {
    throw new TypeError(`${UNREADABLE} (texts, problems or order is not a list)`);
  }
  // No prototype: a variable may be named `__proto__` or `hasOwnProperty`.
  const texts: Record<string, string> = Object.create(null);
  let at = end + 1;
  for (const entry of lengths as unknown[]) {
    const [name, length] = Array.isArray(entry) && entry.length === 2 ? entry : [];
    if (typeof name !== "string" || !Number.isSafeInteger(length) || (length as number) < 0 || at + (length as number) > report.length) {
      throw new TypeError(`${UNREADABLE} (a text's name or length does not fit the report)`);
    }
    if (Object.hasOwn(texts, name)) throw new TypeError(`${UNREADABLE} (${JSON.stringify(name.slice(0, 100))} is reported twice)`);
    texts[name] = report.slice(at, at + (length as number));
    at += length as number;
  }
  if (at !== report.length) throw new TypeError(`${UNREADABLE} (${report.length - at} characters follow the last text)`);
  return {
    texts,
    problems: problems as Collected["problems"],
    ...(order !== undefined ? { order: order as string[] } : {}),
    ...(typeof encoded === "number" ? { encoded } : {}),
    ...(typeof regroup === "boolean" ? { regroup } : {}),
  };
}

/** Writes a collect report as the guest does (for executors that stand in for one in tests). */
export function writeCollectReport(collected: Collected): string {
  const names = Object.keys(collected.texts);
  const { texts: _texts, ...rest } = collected;
  return JSON.stringify({ ...rest, texts: names.map((name) => [name, collected.texts[name]!.length]) }) + "\n" + names.map((name) => collected.texts[name]).join("");
}
