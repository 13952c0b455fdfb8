/**
 * @module
 * `statek fork <id> --turn N`: a new job with the workspace and history job `id` had at the end of turn N
 * (`statek.forkJob`), optionally asking another model after a message; a worker, or the application's
 * `statek.runJob`, runs it. Prints the new job's id.
 */
import { Statek } from "../../jobs/statek.ts";
import { CliError } from "../../errors/cli-error.ts";
import { HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { openCliStore } from "../open-cli-store.ts";
import { MIN_ID_PREFIX, resolveJob } from "../resolve-job.ts";
import { readAssignments } from "./submit.ts";

/** `statek fork <id> --turn N [--model MODEL] [--message TEXT] [--var NAME=JSON …] [--json] [--store STORE]`. */
export const forkCommand: Command = {
  name: "fork",
  summary: "Fork a job from the end of one of its turns; print the new job's id.",
  description:
    "Creates a new READY job with the variables and history the job had at the end of turn N (the turn numbers\n" +
    "`statek show` prints; 0 is the end of warmup). The new job starts by asking its model — --model names\n" +
    "another one — after --message, with --var values bound over the copied variables. The original is not\n" +
    "changed. A worker, or the application's statek.runJob, runs the new job.",
  arguments: [{ name: "id", description: `The job's id, or a unique prefix of it (at least ${MIN_ID_PREFIX} characters).` }],
  options: {
    turn: { type: "string", valueName: "N", description: "The turn whose end the fork starts from (required)." },
    model: { type: "string", valueName: "MODEL", description: "A MODEL string the fork asks instead (openai/gpt-5-mini)." },
    message: { type: "string", valueName: "TEXT", description: "A user message the fork's model reads first." },
    var: { type: "string", valueName: "NAME=JSON", multiple: true, description: "A variable bound over the copied ones (repeatable)." },
    json: { ...JSON_OPTION, description: "Print { id, forkedFrom } as JSON." },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek fork 9aaf6273 --turn 3", "statek fork 9aaf6273 --turn 3 --model openai/gpt-5 --message 'The lookup tool is fixed; try again.'"],
  run: runFork,
};

async function runFork({ values, positionals, io }: CommandInput): Promise<number> {
  const turn = readTurn(values.turn);
  const vars = readAssignments(values.var, "--var", "fork");
  const store = await openCliStore(values.store as string | undefined);
  try {
    const row = await resolveJob(store, positionals[0]!);
    const statek = await Statek.open({ store });
    try {
      const { id } = await statek.forkJob(row.id, {
        atTurn: turn, vars,
        ...(typeof values.model === "string" ? { model: values.model } : {}),
        ...(typeof values.message === "string" ? { message: values.message } : {}),
      });
      if (values.json) io.stdout.write(JSON.stringify({ id, forkedFrom: { jobId: row.id, turn } }) + "\n");
      else io.stdout.write(`${id}\n`);
      return 0;
    } finally {
      await statek.close();
    }
  } finally {
    await store.close();
  }
}

function readTurn(value: string | boolean | string[] | undefined): number {
  if (value === undefined) throw new CliError({ message: "missing --turn N (the turn whose end the fork starts from)", exitCode: 2, command: "fork" });
  if (typeof value !== "string" || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new CliError({ message: `--turn must be a turn number (0 or more), got '${String(value)}'`, exitCode: 2, command: "fork" });
  }
  return Number(value);
}
