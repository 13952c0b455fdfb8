/**
 * @module
 * What `statek worker` prints: the live status line on a terminal, log lines otherwise.
 */
import type { WorkerActivity, WorkerStats } from "../jobs/statek-worker.ts";
import { formatError } from "../tools/call-tool.ts";

/** `running 3 · suspended 120 · done 500 · failed 0 · 812 steps/s`. */
export function formatWorkerStatus(stats: WorkerStats): string {
  const rate = stats.stepsPerSecond >= 100 ? Math.round(stats.stepsPerSecond).toString() : stats.stepsPerSecond.toFixed(1);
  const parts = [`running ${stats.running}`, `suspended ${Math.max(0, stats.suspended)}`, `done ${stats.done}`, `failed ${stats.failed}`];
  if (stats.cancelled) parts.push(`cancelled ${stats.cancelled}`);
  if (stats.stepErrors) parts.push(`step errors ${stats.stepErrors}`);
  parts.push(`${rate} steps/s`);
  return parts.join(" · ");
}

/** A log line for an activity worth a line (a job that ended, an error), else `undefined`. */
export function formatWorkerActivity(activity: WorkerActivity, now: Date = new Date()): string | undefined {
  const time = now.toISOString();
  switch (activity.kind) {
    case "step-end":
      if (activity.status !== "DONE" && activity.status !== "FAILED" && activity.status !== "CANCELLED") return undefined;
      return `${time} job ${activity.jobId} ${activity.status}`;
    case "step-error":
      return `${time} job ${activity.jobId} step not committed (it will be stepped again): ${formatError(activity.error)}`;
    case "worker-error":
      return `${time} worker: ${formatError(activity.error)}`;
    case "lease-late":
      return `${time} job ${activity.jobId}: its lease went ${activity.unrenewedMs} ms without a renewal (it lasts ${activity.leaseMs} ms): the event loop stalled; another worker may have taken the job over, and the calls it had in flight are then in doubt`;
    case "check-error":
      return `${time} ${activity.jobId ? `job ${activity.jobId}: ` : ""}checked future${activity.key ? ` ${activity.key}` : "s"}: ${formatError(activity.error)} (checked again later)`;
    case "owner-gone":
      return `${time} worker ${activity.owner} is gone (no such process): took over its ${activity.leases} ${activity.leases === 1 ? "job" : "jobs"} without waiting for the leases to expire`;
  }
}
