/**
 * @module
 * `insertFork`: a new job made of another's workspace as of the end of one of its turns. The variables are
 * rebuilt from the original's versions (each name's last version at or before the turn; a deletion leaves it
 * out), in the transaction that inserts the fork, and the versions up to the turn are copied with them so the
 * fork can itself be forked anywhere its original could.
 */
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import { NoSuchJobError } from "../errors/no-such-job-error.ts";
import type { AdapterTransaction, VariableVersionValues } from "./store-adapter.ts";
import { decodeLockedJob, decodeVariableVersion } from "./store-rows.ts";
import { insertJobIn } from "./store-writes.ts";
import type { JobFork, VariableRow } from "./store.ts";

/** Inserts `fork` (see `Store.insertFork`). */
export async function insertForkIn(transaction: AdapterTransaction, fork: JobFork): Promise<void> {
  const { job, history, putVariables } = fork;
  const { jobId, turn } = job.forkedFrom;
  const call = `insertFork of job ${job.id}`;
  if (job.turns !== turn) throw new Error(`${call}: its turns (${job.turns}) must be the turn it forks (${turn})`);
  const source = await transaction.lockJob(jobId);
  if (source === undefined) throw new NoSuchJobError({ jobId });
  const { turns, versionsFrom } = decodeLockedJob(source);
  if (turns === undefined) throw new CorruptRecordError({ jobId, location: "jobs.turns" });
  if (turn > turns) throw new Error(`${call}: job ${jobId} has ${turns} turns; there is no turn ${turn} to fork from`);
  if (versionsFrom === undefined) throw new CorruptRecordError({ jobId, location: "jobs.versionsFrom" });
  if (turn < versionsFrom) {
    throw new Error(
      `${call}: job ${jobId} keeps its variables' versions from turn ${versionsFrom} on (it was created before versions were kept), ` +
        `so its workspace as of turn ${turn} is unknown; fork it at turn ${versionsFrom} or later`,
    );
  }
  const versions = (await transaction.readVariableVersions(jobId, turn)).map((row) => decodeVariableVersion(jobId, row));
  const variables = variablesAt(versions);
  let next = Math.max(-1, ...[...variables.values()].map((variable) => variable.position)) + 1;
  for (const { name, blob } of putVariables) variables.set(name, { name, blob, position: variables.get(name)?.position ?? next++ });
  const rows = [...variables.values()].sort((a, b) => a.position - b.position || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  await insertJobIn(transaction, job, rows, history, undefined, versionsFrom);
  // The fork's versions at its turn are its variables (put by insertJobIn) and the deletions made then.
  const copied: VariableVersionValues[] = versions.filter((version) => version.turn < turn || (version.blob === null && !variables.has(version.name)));
  if (copied.length) await transaction.putVariableVersions(job.id, copied);
}

/** Each name's last version (versions come by name, then turn); deleted names are left out. */
function variablesAt(versions: readonly VariableVersionValues[]): Map<string, VariableRow> {
  const last = new Map<string, VariableVersionValues>();
  for (const version of versions) {
    const seen = last.get(version.name);
    if (seen === undefined || seen.turn <= version.turn) last.set(version.name, version);
  }
  const variables = new Map<string, VariableRow>();
  for (const { name, blob, position } of last.values()) if (blob !== null) variables.set(name, { name, blob, position });
  return variables;
}
