/**
 * @module
 * Everything the job page and `GET /api/jobs/:id` show about one job, read from the store: the row, its parent
 * and children, the history, the variables (decoded on the host and shown as the model sees values), the
 * shared memory it is bound to, the current cell's journal, the futures it waits for, and its pending approvals.
 */
import { llmRepr } from "../tools/llm-repr.ts";
import { formatError } from "../tools/call-tool.ts";
import type { FutureRow, HistoryRow, JobRow, Journal, Store } from "../store/store.ts";
import { decodeVariables, loadReferences } from "../workspace/decode-variables.ts";
import type { PendingApproval, UiActions } from "./ui-actions.ts";
import { memoryBindingOfRows, readJobMemory, type JobMemoryView } from "../jobs/memory/job-memory-view.ts";

/** Children shown on a job's page (the list page filters by parent for all of them). */
export const CHILDREN_SHOWN = 50;
/** A variable's preview is cut here (the JSON API too: the store holds the whole value). */
const PREVIEW_CHARS = 4000;

/** One workspace variable as the UI shows it. */
export interface VariablePreview {
  name: string;
  /** The value as `llmRepr` shows it to the model, cut at a few thousand characters. */
  preview: string;
  /** Why the value could not be shown, when it could not. */
  error?: string;
}

/** One job, in full. */
export interface JobDetails {
  job: JobRow;
  parent: JobRow | null;
  /** The newest {@link CHILDREN_SHOWN} children. */
  children: JobRow[];
  history: HistoryRow[];
  variables: VariablePreview[];
  /** The value given to `exit`, as the model would see it, or `null`. */
  exitValue: string | null;
  journal: Journal | null;
  /** Futures still waiting, oldest first. */
  waits: FutureRow[];
  /** Pending approvals. */
  approvals: PendingApproval[];
  /** The shared memory the job is bound to and what it reads now (`null`: bound to none), or why it cannot be shown. */
  memory: JobMemoryView | { error: string } | null;
}

/** Reads job `id` in full; `null` when there is no such job. */
export async function loadJobDetails(store: Store, actions: UiActions, id: string): Promise<JobDetails | null> {
  const job = await store.getJob(id);
  if (!job) return null;
  const [parent, children, history, variableRows, journal, waits, approvals] = await Promise.all([
    job.parentId === null ? null : store.getJob(job.parentId),
    store.browseJobs({ parentId: id, limit: CHILDREN_SHOWN }),
    store.getHistory(id),
    store.getVariables(id),
    store.getJournal(id),
    store.listFutures(id, { state: "waiting" }),
    actions.pendingApprovals({ jobId: id }),
  ]);
  const exitText = safeRead(() => job.exitStatus);
  const exitValue = exitText ? (await previewVariables([{ name: "exit", blob: exitText, position: 0 }]))[0]! : null;
  return {
    job, parent, children, history, variables: await previewVariables(variableRows), journal, waits, approvals, memory: await jobMemory(store, id, history),
    exitValue: exitValue === null ? null : exitValue.error ? `cannot be shown: ${exitValue.error}` : exitValue.preview,
  };
}

async function jobMemory(store: Store, id: string, history: HistoryRow[]): Promise<JobDetails["memory"]> {
  try {
    const binding = memoryBindingOfRows(id, history);
    return binding ? await readJobMemory(store, binding) : null;
  } catch (error) {
    return { error: formatError(error) };
  }
}

function safeRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

async function previewVariables(rows: Awaited<ReturnType<Store["getVariables"]>>): Promise<VariablePreview[]> {
  let values: Record<string, unknown>;
  try {
    // No bindings or tools here: a handle to one shows as what it refers to, never as the live object.
    const references = await loadReferences(rows.map((row) => row.blob), { bindings: new Map(), tools: [] });
    values = decodeVariables(rows, references);
  } catch (error) {
    return rows.map((row) => ({ name: row.name, preview: "", error: formatError(error) }));
  }
  return rows.map((row) => {
    try {
      const text = llmRepr(values[row.name], { maxItems: 50, maxDepth: 4 });
      return { name: row.name, preview: text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}… (${text.length.toLocaleString("en-US")} characters)` : text };
    } catch (error) {
      return { name: row.name, preview: "", error: formatError(error) };
    }
  });
}
