/**
 * @module
 * `statek jobs`: the jobs in a store, newest first, as a table or as JSON.
 */
import { toJobSummary } from "../../jobs/history/job-view.ts";
import { JOB_STATUSES, type JobFilter, type JobRow, type JobStatus } from "../../store/store.ts";
import { formatError } from "../../tools/call-tool.ts";
import { CliError } from "../../errors/cli-error.ts";
import { HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { formatTable } from "../format-table.ts";
import { formatLocalTime } from "../../format/format-time.ts";
import { openCliStore } from "../open-cli-store.ts";
import { readField } from "../read-field.ts";
import { truncateLine } from "../truncate-text.ts";

const DEFAULT_LIMIT = 100;
const ERROR_MAX_CHARS = 60;

/** `statek jobs [--status S] [--agent R] [--limit N] [--json] [--store STORE]`. */
export const jobsCommand: Command = {
  name: "jobs",
  summary: "List jobs, newest first.",
  description:
    "Lists the jobs in the store, newest first: id, agent role, status, model turns taken, when the job\n" +
    "last changed (UTC), and the start of the error of a failed job. `statek show <id>` shows one in full.",
  arguments: [],
  options: {
    status: {
      type: "string",
      valueName: "S",
      description: `Only jobs with status S: ${JOB_STATUSES.join(", ")} (several: DONE,FAILED).`,
    },
    agent: { type: "string", valueName: "R", description: "Only jobs of the agent with role R." },
    role: { type: "string", valueName: "R", description: "The same as --agent." },
    limit: { type: "string", valueName: "N", description: `Show at most N jobs (default ${DEFAULT_LIMIT}).` },
    json: { ...JSON_OPTION, description: "Print the job summaries as a JSON array." },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek jobs", "statek jobs --status FAILED --limit 20", "statek jobs --agent calendar_assistant --json"],
  run: runJobs,
};

async function runJobs({ values, io }: CommandInput): Promise<number> {
  const filter = parseFilter(values);
  const limit = filter.limit!;
  const store = await openCliStore(values.store as string | undefined);
  try {
    // One more than asked for tells whether the list was cut.
    const found = await store.listJobs({ ...filter, limit: limit + 1 });
    const rows = found.slice(0, limit);
    if (values.json) {
      io.stdout.write(JSON.stringify(rows.map(summarize), null, 2) + "\n");
    } else if (rows.length === 0) {
      io.stdout.write(`no jobs${describeFilter(values)}\n`);
    } else {
      const table = formatTable(
        [{ header: "ID" }, { header: "ROLE" }, { header: "STATUS" }, { header: "TURNS", align: "right" }, { header: "UPDATED" }, { header: "ERROR" }],
        rows.map(tableRow),
      );
      if (found.length > limit) table.push(`(the newest ${limit} shown; --limit N shows more)`);
      io.stdout.write(table.join("\n") + "\n");
    }
    return 0;
  } finally {
    await store.close();
  }
}

function parseFilter(values: CommandInput["values"]): JobFilter & { limit: number } {
  const usageError = (message: string) => new CliError({ message, exitCode: 2, command: "jobs" });
  const filter: JobFilter & { limit: number } = { limit: DEFAULT_LIMIT };
  if (typeof values.status === "string") {
    const statuses = values.status.split(",").map((status) => status.trim().toUpperCase());
    for (const status of statuses) {
      if (!(JOB_STATUSES as readonly string[]).includes(status)) {
        throw usageError(`unknown status '${status}' for --status (expected one of ${JOB_STATUSES.join(", ")})`);
      }
    }
    filter.status = statuses.length === 1 ? (statuses[0] as JobStatus) : (statuses as JobStatus[]);
  }
  if (typeof values.agent === "string" && typeof values.role === "string" && values.agent !== values.role) {
    throw usageError("--agent and --role name the same filter; give one of them");
  }
  const role = values.agent ?? values.role;
  if (typeof role === "string") filter.role = role;
  if (typeof values.limit === "string") {
    if (!/^\d+$/.test(values.limit) || Number(values.limit) < 1) {
      throw usageError(`--limit must be a whole number of at least 1 (got '${values.limit}')`);
    }
    filter.limit = Number(values.limit);
  }
  return filter;
}

function describeFilter(values: CommandInput["values"]): string {
  const parts = [
    typeof values.status === "string" ? `status ${values.status.toUpperCase()}` : "",
    typeof (values.agent ?? values.role) === "string" ? `role ${String(values.agent ?? values.role)}` : "",
  ].filter(Boolean);
  return parts.length ? ` with ${parts.join(" and ")}` : "";
}

function tableRow(row: JobRow): string[] {
  const cell = <Key extends keyof JobRow>(key: Key, format: (value: JobRow[Key]) => string) => {
    const read = readField(row, key);
    return read.ok ? format(read.value) : "?";
  };
  const unreadable = (["role", "status", "turns", "updatedAt", "error"] as const)
    .map((key) => readField(row, key))
    .find((read) => !read.ok);
  const error = unreadable && !unreadable.ok ? `✗ ${unreadable.error}` : cell("error", (text) => text ?? "");
  return [
    row.id,
    cell("role", String),
    cell("status", String),
    cell("turns", String),
    cell("updatedAt", formatLocalTime),
    truncateLine(error, ERROR_MAX_CHARS),
  ];
}

/** The JSON form of a row: the public `JobSummary`, or what can be read of a corrupt row. */
function summarize(row: JobRow): unknown {
  try {
    return toJobSummary(row);
  } catch (error) {
    return { id: row.id, corrupt: formatError(error) };
  }
}
