/**
 * @module
 * The shared memory a job is bound to, as operators see it (`statek.getJob`, `statek show`, the UI's job page):
 * its context, its access, and the entries it reads now — its context merged with every broader one.
 */
import type { HistoryRow, Store } from "../../store/store.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import { memoryItem, mergeMemory, readableContexts, type MemoryBinding, type MemoryItem } from "../../agents/memory.ts";
import type { HistoryRecord } from "../history/history.ts";
import { decodeHistoryRecord } from "../history/history-codec.ts";

/** A job's shared memory: its binding and what it reads now. */
export interface JobMemoryView extends MemoryBinding {
  /** The entries the job reads, one per key (the most specific context's), ordered by key. */
  entries: MemoryItem[];
}

/** The memory binding a job's `submitted` record keeps, if any. */
export function memoryBindingOf(history: readonly HistoryRecord[]): MemoryBinding | undefined {
  const submitted = history.find((record) => record.kind === "submitted");
  return submitted?.kind === "submitted" ? submitted.data.memory : undefined;
}

/** The memory binding of a job from its stored rows (its `submitted` row decoded and checked), if any. */
export function memoryBindingOfRows(jobId: string, rows: readonly HistoryRow[]): MemoryBinding | undefined {
  const submitted = rows.find((row) => row.kind === "submitted");
  return submitted ? memoryBindingOf([decodeHistoryRecord(jobId, submitted)]) : undefined;
}

/** What a job bound by `binding` reads now. */
export async function readJobMemory(store: Store, binding: MemoryBinding): Promise<JobMemoryView> {
  const entries = await withStoreRetries(() => store.readMemory(readableContexts(binding.specifiers)));
  return { specifiers: [...binding.specifiers], access: binding.access, entries: mergeMemory(entries).map(memoryItem) };
}
