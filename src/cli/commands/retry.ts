/**
 * @module
 * `statek retry <id>`: a FAILED job resumes from its last committed state (`statek.retryJob`); a worker, or the
 * application's `statek.runJob`, then runs it on.
 */
import { Statek } from "../../jobs/statek.ts";
import { HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { openCliStore } from "../open-cli-store.ts";
import { MIN_ID_PREFIX, resolveJob } from "../resolve-job.ts";

/** `statek retry <id> [--json] [--store STORE]`. */
export const retryCommand: Command = {
  name: "retry",
  summary: "Resume a FAILED job from its last committed state.",
  description:
    "Resumes a FAILED job where it stood when it failed — its variables, history and pending reply kept — in\n" +
    "the status it was running in, with its error cleared and fresh turn and exception allowances (a failed\n" +
    "warmup block runs again). The command only changes the job; a worker or the application runs it on.",
  arguments: [{ name: "id", description: `The job's id, or a unique prefix of it (at least ${MIN_ID_PREFIX} characters).` }],
  options: {
    json: { ...JSON_OPTION, description: "Print { id, status } as JSON." },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek retry 9aaf6273"],
  run: runRetry,
};

async function runRetry({ values, positionals, io }: CommandInput): Promise<number> {
  const store = await openCliStore(values.store as string | undefined);
  try {
    const row = await resolveJob(store, positionals[0]!);
    const statek = await Statek.open({ store });
    try {
      const view = await statek.retryJob(row.id);
      if (values.json) io.stdout.write(JSON.stringify({ id: view.id, status: view.status }) + "\n");
      else io.stdout.write(`job ${view.id} ${view.status} again (retried); a worker or statek.runJob runs it on\n`);
      return 0;
    } finally {
      await statek.close();
    }
  } finally {
    await store.close();
  }
}
