/**
 * @module
 * The header `statek show` prints above a job's timeline: who runs it, where it stands, what it cost.
 */
import type { JobRow, JsonValue } from "../store/store.ts";
import { formatJobUsage } from "../format/format-job-usage.ts";
import { llmRepr } from "../tools/llm-repr.ts";
import { formatExitStatus } from "./format-exit-status.ts";
import { formatLocalTime, formatRelativeTime } from "../format/format-time.ts";
import { prefixLines } from "./prefix-lines.ts";
import { readField } from "./read-field.ts";
import { truncateBlock, type BlockLimits } from "./truncate-text.ts";

/** The header lines of a job, times in the local zone; corrupt fields show their error instead of a value. */
export function formatJobHeader(row: JobRow, limits: BlockLimits | null, now: number = Date.now()): string[] {
  const lines: string[] = [];
  const field = (label: string, text: string) => lines.push(...prefixLines(text.split("\n"), `${label.padEnd(9)} `));
  const show = <Key extends keyof JobRow>(label: string, key: Key, format: (value: JobRow[Key]) => string | null) => {
    const read = readField(row, key);
    if (!read.ok) return field(label, `✗ ${read.error}`);
    const text = format(read.value);
    if (text !== null) field(label, text);
  };
  field("job", row.id);
  show("role", "role", (role) => role);
  show("status", "status", (status) => status);
  show("turns", "turns", (turns) => String(turns));
  show("created", "createdAt", (at) => `${formatLocalTime(at)} (${formatRelativeTime(at, now)})`);
  show("updated", "updatedAt", (at) => `${formatLocalTime(at)} (${formatRelativeTime(at, now)})`);
  show("usage", "usage", formatJobUsage);
  show("parent", "parentId", (parentId) => parentId);
  show("forked", "forkedFrom", (origin) => (origin === undefined ? null : `from job ${origin.jobId}, at the end of turn ${origin.turn}`));
  show("pending", "pendingSeq", (seq) => (seq === null ? null : `the model's last reply is saved and runs at the job's next step (history entry ${seq})`));
  show("params", "params", (params) => formatObject(params, limits));
  show("metadata", "metadata", (metadata) => formatObject(metadata, limits));
  show("exit", "exitStatus", (text) => (text === null ? null : truncateBlock(formatExitStatus(text), limits).join("\n")));
  show("error", "error", (error) => (error === null ? null : `✗ ${error}`));
  return lines;
}

function formatObject(value: Record<string, JsonValue>, limits: BlockLimits | null): string | null {
  if (Object.keys(value).length === 0) return null;
  return truncateBlock(llmRepr(value), limits).join("\n");
}
