/**
 * @module
 * `statek approve <id> [request]` and `statek deny <id> [request]`: a human's decision on a job's approval
 * request (`statek.approve` / `statek.deny`). The request may be left out when the job waits for exactly one.
 * The decision settles the request's durable future; a worker — in this process's store or another
 * process — steps the job on, and its history records who decided, when and which way.
 */
import { userInfo } from "node:os";
import type { PendingApproval } from "../../jobs/operate/approvals.ts";
import { Statek } from "../../jobs/statek.ts";
import { formatError } from "../../tools/call-tool.ts";
import { formatLocalTime, formatRelativeTime } from "../../format/format-time.ts";
import { truncateLine } from "../truncate-text.ts";
import { CliError } from "../../errors/cli-error.ts";
import { HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { openCliStore } from "../open-cli-store.ts";
import { MIN_ID_PREFIX, resolveJob } from "../resolve-job.ts";

type Decision = "approve" | "deny";

/** `statek approve <id> [request] [--note TEXT] [--by NAME] [--json] [--store STORE]`. */
export const approveCommand: Command = decisionCommand("approve");

/** `statek deny <id> [request] [--note TEXT] [--by NAME] [--json] [--store STORE]`. */
export const denyCommand: Command = decisionCommand("deny");

function decisionCommand(decision: Decision): Command {
  const approving = decision === "approve";
  return {
    name: decision,
    summary: approving ? "Approve a job's approval request: the waiting call runs." : "Deny a job's approval request: the waiting code throws ApprovalDenied.",
    description:
      (approving
        ? "Approves a request a job waits for (a needsApproval tool's call, or requestApproval): the call runs\n" +
          "once, and sees --note as ctx.approval.note."
        : "Denies a request a job waits for: the waiting code throws ApprovalDenied, with --note as its message.") +
      "\nThe first decision stands; a second one fails naming it. The decision goes into the job's history with\n" +
      "who made it (--by, default the user running the command). Leave out the request when the job waits for\n" +
      "exactly one; `statek approvals` lists them. It prints what it decided: the tool, its arguments and when\n" +
      "it was requested. A running worker steps the job on.",
    arguments: [{ name: "id", description: `The job's id, or a unique prefix of it (at least ${MIN_ID_PREFIX} characters).` }],
    optionalArgument: { name: "request", description: "The request's id (as statek approvals prints it); optional when the job waits for one." },
    options: {
      note: { type: "string", valueName: "TEXT", description: approving ? "A note the approved call sees." : "Why: the ApprovalDenied message." },
      by: { type: "string", valueName: "NAME", description: "Who decides, for the job's history (default: your user name)." },
      json: { ...JSON_OPTION, description: "Print { jobId, requestId, decision, by, tool, args, requestedAt } as JSON." },
      store: STORE_OPTION,
      help: HELP_OPTION,
    },
    examples: approving
      ? ["statek approve 9aaf6273", "statek approve 9aaf6273 9aaf6273-…:0:4 --note \"ok for this customer\""]
      : ["statek deny 9aaf6273 --note \"refunds over 500 need a manager\""],
    run: (input) => runDecision(decision, input),
  };
}

async function runDecision(decision: Decision, { values, positionals, io }: CommandInput): Promise<number> {
  const usageError = (message: string) => new CliError({ message, exitCode: 2, command: decision });
  const note = values.note;
  if (note !== undefined && typeof note !== "string") throw usageError("--note needs a text");
  const by = values.by ?? defaultDecider();
  if (typeof by !== "string" || by.trim() === "") throw usageError("--by needs a non-empty name");
  const store = await openCliStore(values.store as string | undefined);
  try {
    const job = await resolveJob(store, positionals[0]!);
    const statek = await Statek.open({ store });
    try {
      const pending = await statek.pendingApprovals({ jobId: job.id });
      const requestId = positionals[1] ?? onlyRequest(job.id, pending);
      // What is decided, shown with the decision: run twice, the second command names a different request.
      const request = pending.find((candidate) => candidate.requestId === requestId);
      const options = { by, ...(note === undefined ? {} : { note }) };
      try {
        if (decision === "approve") await statek.approve(job.id, requestId, options);
        else await statek.deny(job.id, requestId, options);
      } catch (error) {
        throw new CliError({ message: `cannot ${decision} request ${requestId} of job ${job.id}: ${formatError(error)}`, cause: error });
      }
      if (values.json) {
        const about = request ? { tool: request.tool, args: request.args, requestedAt: request.requestedAt.toISOString(), ...(request.summary === undefined ? {} : { summary: request.summary }) } : {};
        io.stdout.write(JSON.stringify({ jobId: job.id, requestId, decision: approving(decision), by, ...about }) + "\n");
      } else {
        io.stdout.write(`${approving(decision)} request ${requestId} of job ${job.id} (by ${by})\n`);
        if (request) io.stdout.write(describeRequest(request, Date.now()));
      }
      return 0;
    } finally {
      await statek.close();
    }
  } finally {
    await store.close();
  }
}

/** The request as the decision's output shows it: tool, summary, arguments, when it was asked. */
function describeRequest(request: PendingApproval, now: number): string {
  const args = JSON.stringify(request.args);
  return [
    `  tool       ${request.tool}`,
    ...(request.summary === undefined ? [] : [`  summary    ${truncateLine(request.summary, 200)}`]),
    `  arguments  ${truncateLine(args, 200)}`,
    `  requested  ${formatLocalTime(request.requestedAt.getTime())} (${formatRelativeTime(request.requestedAt.getTime(), now)})`,
    "",
  ].join("\n");
}

const approving = (decision: Decision) => (decision === "approve" ? "approved" : "denied");

/** The one request job `jobId` waits for; an error listing them when there are none or several. */
function onlyRequest(jobId: string, pending: PendingApproval[]): string {
  if (pending.length === 1) return pending[0]!.requestId;
  if (pending.length === 0) throw new CliError({ message: `job ${jobId} waits for no approval request` });
  const listed = pending.map((request) => `  ${request.requestId}  ${request.summary ?? request.tool}`).join("\n");
  throw new CliError({ message: `job ${jobId} waits for ${pending.length} approval requests; name one:\n${listed}` });
}

function defaultDecider(): string {
  try {
    return userInfo().username || "cli";
  } catch {
    return "cli";
  }
}
