/**
 * @module
 * `statek show <id>`: one job in full — its header, then its timeline (code, console, tool calls, errors,
 * status changes) — or its stored rows as JSON.
 */
import { HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { formatJournal, formatWaits } from "../format-durable-state.ts";
import { formatJobHeader } from "../format-job-header.ts";
import { formatTimeline } from "../format-timeline.ts";
import { openCliStore } from "../open-cli-store.ts";
import { toPlainRow } from "../read-field.ts";
import { MIN_ID_PREFIX, resolveJob } from "../resolve-job.ts";
import { RESULT_LIMITS } from "../timeline-limits.ts";
import { formatMemoryBinding, formatMemoryEntry } from "../../format/format-memory.ts";
import { formatError } from "../../tools/call-tool.ts";
import { memoryBindingOfRows, readJobMemory, type JobMemoryView } from "../../jobs/memory/job-memory-view.ts";
import type { HistoryRow, Store } from "../../store/store.ts";

/** `statek show <id> [--json] [--full] [--store STORE]`. */
export const showCommand: Command = {
  name: "show",
  summary: "Show one job: header, current cell's journal, pending waits, and timeline.",
  description:
    "Shows one job: role, status, turns, times, token usage and cost, exit value and error; the\n" +
    "shared memory it is bound to (each entry it reads, with the context it came from); the current cell's\n" +
    "journal (each crossing by seq: done, running, or in doubt) and the waits it is suspended on (timers with\n" +
    "their due time, messages, futures, approvals, child jobs); then its timeline\n" +
    "in order — each model turn's usage and code, the tool calls and console output running it produced, the\n" +
    "variables it wrote and deleted, warmup blocks, messages to and from the user, post-processor verdicts and\n" +
    "status changes. Long outputs are cut (errors never are); --full shows everything.",
  arguments: [{ name: "id", description: `The job's id, or a unique prefix of it (at least ${MIN_ID_PREFIX} characters).` }],
  options: {
    full: { type: "boolean", description: "Do not cut long outputs." },
    json: { ...JSON_OPTION, description: "Print the stored rows as JSON: { job, history, variables, memory?, journal, waits, lease }." },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek show 9aaf6273", "statek show 9aaf6273-d886-4502-b57c-7f2fa64d5cc5 --full", "statek show 9aaf6273 --json"],
  run: runShow,
};

/** The shared memory the job is bound to and what it reads now (`null`: bound to none), or why it cannot be read. */
async function jobMemory(store: Store, id: string, history: HistoryRow[]): Promise<JobMemoryView | { error: string } | null> {
  try {
    const binding = memoryBindingOfRows(id, history);
    return binding ? await readJobMemory(store, binding) : null;
  } catch (error) {
    return { error: formatError(error) };
  }
}

/** The memory's lines in the header: its binding, then each entry it reads. */
function memoryLines(memory: JobMemoryView | { error: string } | null, full: boolean): string[] {
  if (memory === null) return [];
  if ("error" in memory) return [`${"memory".padEnd(9)} ✗ ${memory.error}`];
  return [`${"memory".padEnd(9)} ${formatMemoryBinding(memory)}`, ...memory.entries.map((entry) => `${"".padEnd(9)} ${formatMemoryEntry(entry, { full })}`)];
}

async function runShow({ values, positionals, io }: CommandInput): Promise<number> {
  const store = await openCliStore(values.store as string | undefined);
  try {
    const row = await resolveJob(store, positionals[0]!);
    const [variables, history, journal, waits, lease] = await Promise.all([
      store.getVariables(row.id), store.getHistory(row.id), store.getJournal(row.id), store.listFutures(row.id, { state: "waiting" }), store.getLease(row.id),
    ]);
    if (values.json) {
      const memory = await jobMemory(store, row.id, history);
      const json = {
        job: toPlainRow(row), history: history.map(toPlainRow), variables: variables.map((variable) => variable.name),
        ...(memory === null ? {} : { memory: "error" in memory ? { $corrupt: memory.error } : memory }),
        journal: journal && { cell: journal.cell, entries: journal.entries.map(toPlainRow) }, waits: waits.map(toPlainRow), lease,
      };
      io.stdout.write(JSON.stringify(json, null, 2) + "\n");
      return 0;
    }
    const full = values.full === true;
    const lines = [...formatJobHeader(row, full ? null : RESULT_LIMITS)];
    if (variables.length) lines.push(`${"vars".padEnd(9)} ${variables.map((variable) => variable.name).join(", ")}`);
    lines.push(...memoryLines(await jobMemory(store, row.id, history), full));
    // Where a suspended or interrupted cell stands: its journal, and what the job waits for.
    const now = Date.now();
    if (journal) lines.push(...formatJournal(journal, lease, now));
    if (waits.length) lines.push(...formatWaits(waits, now));
    lines.push("", ...formatTimeline(row.id, history, { full }));
    io.stdout.write(lines.join("\n") + "\n");
    return 0;
  } finally {
    await store.close();
  }
}
