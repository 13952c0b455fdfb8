/**
 * @module
 * `statek/format`: how STATEK's own surfaces show things, for applications that show them too — a cost, one
 * call's token usage, a job's usage totals, a time, a duration, a thrown error as the model reads it, and a
 * job's history as a timeline (a typed model: `statek show` renders it as text, the web UI as HTML). This entry
 * only re-exports.
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "../runtime/check-node-version.ts";

/** Numbers, times and errors. */
export { formatCost } from "../models/format-cost.ts";
export { formatUsage } from "./format-usage.ts";
export type { UsageFields } from "./format-usage.ts";
export { formatJobUsage } from "./format-job-usage.ts";
export { formatLocalTime, formatRelativeTime, formatSpan, formatTime } from "./format-time.ts";
export { formatDuration } from "./format-duration.ts";
export { formatError } from "../tools/call-tool.ts";

/** A job's shared memory. */
export { formatMemoryBinding, formatMemoryEntry } from "./format-memory.ts";
export type { JobMemoryView } from "../jobs/memory/job-memory-view.ts";
export type { MemoryItem, MemoryAccess, MemoryBinding } from "../agents/memory.ts";

/** A job's history as a timeline. */
export { buildTimeline, timelineItem, unusualFinish, variableChanges, postProcessVerdict } from "./timeline.ts";
export type { TimelineItem, TimelineSection } from "./timeline.ts";
