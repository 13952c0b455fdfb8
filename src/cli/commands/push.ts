/**
 * @module
 * `statek push <id> <message>`: delivers a user message into a job (what `statek.pushMessage` does). A job
 * waiting in `waitForMessage()` wakes; a worker — in this process's store or another process — steps it.
 */
import { Statek } from "../../jobs/statek.ts";
import { formatError } from "../../tools/call-tool.ts";
import { CliError } from "../../errors/cli-error.ts";
import { HELP_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { openCliStore } from "../open-cli-store.ts";
import { MIN_ID_PREFIX, resolveJob } from "../resolve-job.ts";

/** `statek push <id> <message> [--store STORE]`. */
export const pushCommand: Command = {
  name: "push",
  summary: "Push a user message into a job.",
  description:
    "Delivers a user message into a job, as statek.pushMessage does: the job's next waitForMessage() gets it\n" +
    "(a suspended job wakes), a DONE dialog job starts again. A running worker steps the job.",
  arguments: [
    { name: "id", description: `The job's id, or a unique prefix of it (at least ${MIN_ID_PREFIX} characters).` },
    { name: "message", description: "The message text." },
  ],
  options: { store: STORE_OPTION, help: HELP_OPTION },
  examples: ["statek push 9aaf6273 'Friday works better.'"],
  run: runPush,
};

async function runPush({ values, positionals, io }: CommandInput): Promise<number> {
  const [idText, message] = positionals as [string, string];
  const store = await openCliStore(values.store as string | undefined);
  try {
    const job = await resolveJob(store, idText);
    const statek = await Statek.open({ store });
    try {
      await statek.pushMessage(job.id, message);
    } catch (error) {
      throw new CliError({ message: `cannot push to job ${job.id}: ${formatError(error)}`, cause: error });
    } finally {
      await statek.close();
    }
    io.stdout.write(`pushed to job ${job.id}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
