/**
 * @module
 * The check that keeps a job from *naming* host objects it was never given. A stored variable refers to a
 * host object by key (`binding:calendar`, `x:Meeting:42`), and restoring it re-attaches that object. The
 * stored texts are written by the guest, which agent code can subvert, so a forged text could name any
 * binding of the process or load any object of an exposed class by id. Before the workspace stores a changed
 * variable (or an exit status), every key in it must be one the job legitimately holds: a key of a handle
 * issued to this job, or one that was in its variables when the workspace opened. A sub-task handle's key
 * (`task:<id>:<role>`) names no host object: every use of the handle checks that the job is the child's parent.
 */
import { parseUntrusted } from "./untrusted-json.ts";
import { errorMessage } from "../../errors/error-text.ts";

/** The start of a sub-task handle's persisted key (`guest-waits.ts`). */
export const TASK_KEY_PREFIX = "task:";

/** Keys a job legitimately holds, and the check of a text against them. */
export class ReferenceGuard {
  readonly #known = new Set<string>();

  /** Records a key the job holds. */
  admit(key: string): void {
    this.#known.add(key);
  }

  /** Records the keys of texts already stored (checked when they were written). */
  admitStored(texts: Iterable<string>): void {
    for (const text of texts) {
      try {
        for (const key of referencesIn(text)) this.#known.add(key);
      } catch {
        // A malformed stored text restores as a tombstone; it grants nothing.
      }
    }
  }

  /** True when the job holds `key`. */
  holds(key: string): boolean {
    return this.#known.has(key);
  }

  /** The references in `text` the job does not hold (`[]` when all are fine); a malformed text is refused whole. */
  unknownReferences(text: string): string[] {
    let keys: string[];
    try {
      keys = referencesIn(text);
    } catch (error) {
      return [`(malformed: ${errorMessage(error)})`];
    }
    return keys.filter((key) => !this.#known.has(key) && !key.startsWith(TASK_KEY_PREFIX));
  }
}

/**
 * Every handle reference key in a codec text. A JSON string equal to `h` is written `"h"` or with a `\u0068`
 * escape, so a text with neither holds no handle reference and is not parsed.
 */
export function referencesIn(text: string): string[] {
  if (!text.includes('"h"') && !/\\u0068/i.test(text)) return [];
  const keys: string[] = [];
  const stack: unknown[] = [parseUntrusted(text)];
  while (stack.length) {
    const value = stack.pop();
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (record.$ === "h" && record.id === undefined) {
      if (typeof record.k !== "string") throw new TypeError("a host reference without a key");
      keys.push(record.k);
    }
    for (const key of Object.keys(record)) stack.push(record[key]);
  }
  return keys;
}
