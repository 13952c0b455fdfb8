/**
 * @module
 * `statek approvals`: the approval requests jobs wait for, oldest first (`statek.pendingApprovals`), as a table
 * or as JSON — what `statek approve`/`deny` decide.
 */
import { Statek } from "../../jobs/statek.ts";
import { HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { formatTable } from "../format-table.ts";
import { formatLocalTime } from "../../format/format-time.ts";
import { openCliStore } from "../open-cli-store.ts";
import { readCount } from "../read-count.ts";
import { MIN_ID_PREFIX, resolveJob } from "../resolve-job.ts";
import { truncateLine } from "../truncate-text.ts";

const DEFAULT_LIMIT = 100;
const WHAT_MAX_CHARS = 80;

/** `statek approvals [--job ID] [--agent R] [--limit N] [--json] [--store STORE]`. */
export const approvalsCommand: Command = {
  name: "approvals",
  summary: "List the approval requests jobs wait for.",
  description:
    "Lists pending approval requests, oldest first: the job, the request's id (what statek approve and\n" +
    "statek deny take), the tool whose call waits (or requestApproval) with its arguments or summary, and\n" +
    "when it was asked (UTC).",
  arguments: [],
  options: {
    job: { type: "string", valueName: "ID", description: `Only requests of this job (an id or a unique prefix of at least ${MIN_ID_PREFIX} characters).` },
    agent: { type: "string", valueName: "R", description: "Only requests of jobs of the agent with role R." },
    limit: { type: "string", valueName: "N", description: `Show at most N requests (default ${DEFAULT_LIMIT}).` },
    json: { ...JSON_OPTION, description: "Print the requests as a JSON array." },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek approvals", "statek approvals --agent support --json"],
  run: runApprovals,
};

async function runApprovals({ values, io }: CommandInput): Promise<number> {
  const limit = readCount(values.limit, "--limit", "approvals") ?? DEFAULT_LIMIT;
  const store = await openCliStore(values.store as string | undefined);
  try {
    const jobId = typeof values.job === "string" ? (await resolveJob(store, values.job)).id : undefined;
    const statek = await Statek.open({ store });
    try {
      const found = await statek.pendingApprovals({
        ...(jobId === undefined ? {} : { jobId }),
        ...(typeof values.agent === "string" ? { role: values.agent } : {}),
        limit: limit + 1,
      });
      const requests = found.slice(0, limit);
      if (values.json) {
        io.stdout.write(JSON.stringify(requests, null, 2) + "\n");
      } else if (requests.length === 0) {
        io.stdout.write("no pending approval requests\n");
      } else {
        const table = formatTable(
          [{ header: "JOB" }, { header: "REQUEST" }, { header: "ASKED" }, { header: "WHAT" }],
          requests.map((request) => [
            request.jobId,
            request.requestId,
            formatLocalTime(request.requestedAt.getTime()),
            truncateLine(request.summary ?? `${request.tool}(${JSON.stringify(request.args)})`, WHAT_MAX_CHARS),
          ]),
        );
        if (found.length > limit) table.push(`(the oldest ${limit} shown; --limit N shows more)`);
        io.stdout.write(table.join("\n") + "\n");
      }
      return 0;
    } finally {
      await statek.close();
    }
  } finally {
    await store.close();
  }
}
