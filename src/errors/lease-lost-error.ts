import { StatekError } from "./statek-error.ts";

/**
 * A write carried the fence of a lease that is no longer the job's: another worker claimed the job since (its
 * epoch is higher), or the lease was released. The write changed nothing. Not retryable: the step that made it
 * has lost the job and must stop; whoever holds the lease now replays it.
 *
 * @example
 * ```ts
 * await store.commit({ id, expectedVersion, fence: { owner: "host:41:a1", epoch: 3 } });
 * // LeaseLostError: job 9aaf…: the lease of host:41:a1 (epoch 3) was lost; host:57:c2 holds the job now (epoch 4)
 * ```
 */
export class LeaseLostError extends StatekError {
  readonly jobId: string;
  /** The owner the write named. */
  readonly owner: string;
  /** The epoch the write named. */
  readonly epoch: number;
  /** Who holds the job's lease now (`null`: nobody, it was released). */
  readonly currentOwner: string | null;
  /** The job's current epoch; -1 when it is not known (a renewal that found the lease gone does not read it). */
  readonly currentEpoch: number;

  constructor({ jobId, owner, epoch, currentOwner, currentEpoch }: {
    jobId: string;
    owner: string;
    epoch: number;
    currentOwner: string | null;
    currentEpoch: number;
  }) {
    const now = currentOwner !== null
      ? `${currentOwner} holds the job now (epoch ${currentEpoch})`
      : currentEpoch < 0
        ? "renewing it found another worker's claim or a release"
        : currentEpoch === 0
        ? "nobody has ever claimed the job"
        : currentEpoch === epoch ? "it was released" : `the job was claimed since (epoch ${currentEpoch}) and released`;
    super({ name: "LeaseLostError", message: `job ${jobId}: the lease of ${owner} (epoch ${epoch}) was lost; ${now}` });
    this.jobId = jobId;
    this.owner = owner;
    this.epoch = epoch;
    this.currentOwner = currentOwner;
    this.currentEpoch = currentEpoch;
  }
}
