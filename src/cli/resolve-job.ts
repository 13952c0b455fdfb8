/**
 * @module
 * Finds the job a command names, by its full id or a unique prefix of it (at least 8 characters).
 */
import type { JobRow, Store } from "../store/store.ts";
import { CliError } from "./cli-error.ts";

/** The shortest id prefix accepted. */
export const MIN_ID_PREFIX = 8;

const PAGE_SIZE = 500;

/** The job with id `text`, or the one job whose id starts with it; exit code 1 when there is none or several. */
export async function resolveJob(store: Store, text: string): Promise<JobRow> {
  const exact = await store.getJob(text);
  if (exact) return exact;
  if (text.length < MIN_ID_PREFIX) {
    throw new CliError({ message: `no job ${text} (an id prefix needs at least ${MIN_ID_PREFIX} characters)` });
  }
  // The store has no prefix lookup, so scan the ids page by page.
  const prefix = text.toLowerCase();
  const matches: JobRow[] = [];
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const page = await store.listJobs({ limit: PAGE_SIZE, offset });
    matches.push(...page.filter((row) => row.id.toLowerCase().startsWith(prefix)));
    if (page.length < PAGE_SIZE) break;
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new CliError({ message: `no job ${text}` });
  const shown = matches.slice(0, 5).map((row) => row.id).join(", ");
  throw new CliError({
    message: `job id prefix ${text} is ambiguous: ${matches.length} jobs match (${shown}${matches.length > 5 ? ", …" : ""})`,
  });
}
