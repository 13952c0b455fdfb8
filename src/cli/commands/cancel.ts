/**
 * @module
 * `statek cancel <id>`: cancels a job that has not finished, and its descendants (`statek.cancelJob`). A worker
 * stepping it right now can write nothing more. Error handlers run in this process: with `--agents`, the job's
 * agent's handlers run; without, each handler is logged in the job's history as not registered.
 */
import { Statek } from "../../jobs/statek.ts";
import { CliError } from "../../errors/cli-error.ts";
import { AGENTS_OPTION, HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { agentsModuleOf, loadAgents } from "../load-agents.ts";
import { openCliStore } from "../open-cli-store.ts";
import { MIN_ID_PREFIX, resolveJob } from "../resolve-job.ts";

/** `statek cancel <id> [--reason TEXT] [--json] [--store STORE]`. */
export const cancelCommand: Command = {
  name: "cancel",
  summary: "Cancel a job that has not finished, and its child jobs.",
  description:
    "Cancels a job: its status becomes CANCELLED, the reason goes into its history and error, what it waits\n" +
    "for is cancelled, and a worker stepping it right now can write nothing more. Its child jobs (and theirs)\n" +
    "are cancelled too. Error handlers the job registered run here: give --agents so that this command knows\n" +
    "them; without it each is recorded in the job's history as not registered.",
  arguments: [{ name: "id", description: `The job's id, or a unique prefix of it (at least ${MIN_ID_PREFIX} characters).` }],
  options: {
    reason: { type: "string", valueName: "TEXT", description: "Why the job is cancelled (default: cancelled by the application)." },
    agents: { ...AGENTS_OPTION, description: `${AGENTS_OPTION.description} Their error handlers run for the cancelled jobs.` },
    json: { ...JSON_OPTION, description: "Print { id, status, error } as JSON." },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek cancel 9aaf6273", "statek cancel 9aaf6273 --agents ./agents.ts", "statek cancel 9aaf6273 --reason \"the customer withdrew the request\""],
  run: runCancel,
};

async function runCancel({ values, positionals, io }: CommandInput): Promise<number> {
  const reason = values.reason;
  if (reason !== undefined && (typeof reason !== "string" || reason.trim() === "")) {
    throw new CliError({ message: "--reason needs a non-empty text", exitCode: 2, command: "cancel" });
  }
  const agentsModule = agentsModuleOf(values.agents);
  const agents = agentsModule === undefined ? [] : await loadAgents(agentsModule, "cancel");
  const store = await openCliStore(values.store as string | undefined);
  try {
    const row = await resolveJob(store, positionals[0]!);
    const statek = await Statek.open({ store, agents });
    try {
      const view = await statek.cancelJob(row.id, reason);
      if (values.json) io.stdout.write(JSON.stringify({ id: view.id, status: view.status, error: view.error }) + "\n");
      else io.stdout.write(`job ${view.id} ${view.status}: ${view.error}\n`);
      return 0;
    } finally {
      await statek.close();
    }
  } finally {
    await store.close();
  }
}
