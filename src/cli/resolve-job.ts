/**
 * @module
 * Finds the job a command names, by its full id or a unique prefix of it (at least 8 characters).
 */
import type { JobRow, Store } from "../store/store.ts";
import { CliError } from "../errors/cli-error.ts";

/** The shortest id prefix accepted. */
export const MIN_ID_PREFIX = 8;

/** The job with id `text`, or the one job whose id starts with it; exit code 1 when there is none or several. */
export async function resolveJob(store: Store, text: string): Promise<JobRow> {
  const exact = await store.getJob(text);
  if (exact) return exact;
  if (text.length < MIN_ID_PREFIX) {
    throw new CliError({ message: `no job ${text} (an id prefix needs at least ${MIN_ID_PREFIX} characters)` });
  }
  // An index read of the ids with this prefix (never a scan of the jobs); six tell "several" and show five.
  // Generated ids are lower case, so a prefix typed in upper case finds them too.
  let matches = await store.browseJobs({ idPrefix: text, limit: 6 });
  if (matches.length === 0 && text !== text.toLowerCase()) matches = await store.browseJobs({ idPrefix: text.toLowerCase(), limit: 6 });
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new CliError({ message: `no job ${text}` });
  const shown = matches.slice(0, 5).map((row) => row.id).join(", ");
  throw new CliError({
    message: `job id prefix ${text} is ambiguous: ${matches.length > 5 ? "more than 5" : matches.length} jobs match (${shown}${matches.length > 5 ? ", …" : ""})`,
  });
}
