/**
 * @module
 * `statek submit <role> --agents <module>`: submits a job of one of the module's agents and prints its id. A
 * worker (`statek worker`, here or in another process) runs it.
 */
import { Statek } from "../../jobs/statek.ts";
import { DEFAULT_STORE_PATH } from "../../store/open-store.ts";
import { cliStoreSpec } from "../open-cli-store.ts";
import { formatError } from "../../tools/call-tool.ts";
import { CliError } from "../../errors/cli-error.ts";
import { AGENTS_OPTION, HELP_OPTION, JSON_OPTION, type Command, type CommandInput } from "../command.ts";
import { agentsModuleOf, loadAgents } from "../load-agents.ts";

/** `statek submit <role> --agents MODULE [--var NAME=JSON …] [--param NAME=JSON …] [--message TEXT] [--store STORE] [--json]`. */
export const submitCommand: Command = {
  name: "submit",
  summary: "Submit a job of an agent; print its id.",
  description:
    "Submits a job of the agent with the given role (from --agents) and prints its id. Its workspace variables\n" +
    "and parameters are JSON values: --var count=3 --var user='{\"name\":\"Ann\"}' --var note='\"a string\"'.\n" +
    "A worker runs the job: `statek worker` with the same store, in this process or another.",
  arguments: [{ name: "role", description: "The role of the agent that runs the job." }],
  options: {
    agents: AGENTS_OPTION,
    var: { type: "string", valueName: "NAME=JSON", multiple: true, description: "A workspace variable of the job (repeatable)." },
    param: { type: "string", valueName: "NAME=JSON", multiple: true, description: "A job parameter for prompt placeholders (repeatable)." },
    message: { type: "string", valueName: "TEXT", description: "The user's opening message." },
    store: { type: "string", valueName: "STORE", description: `A SQLite file or a postgres:// URL (default $STATEK_STORE, else ${DEFAULT_STORE_PATH}; created if missing).` },
    json: { ...JSON_OPTION, description: "Print { \"id\": … } as JSON." },
    help: HELP_OPTION,
  },
  examples: ["statek submit calendar_assistant --agents ./agents.ts --message 'Move my 1:1 to Friday.'", "statek submit counter --agents ./agents.ts --var start=10"],
  run: runSubmit,
};

async function runSubmit({ values, positionals, io }: CommandInput): Promise<number> {
  const role = positionals[0]!;
  const agentsModule = agentsModuleOf(values.agents);
  if (agentsModule === undefined) throw new CliError({ message: "missing --agents MODULE (the module exporting your agents; or set STATEK_AGENTS)", exitCode: 2, command: "submit" });
  const vars = readAssignments(values.var, "--var");
  const params = readAssignments(values.param, "--param");
  const store = cliStoreSpec(typeof values.store === "string" ? values.store : undefined);
  const agents = await loadAgents(agentsModule, "submit");
  const agent = agents.find((candidate) => candidate.role === role);
  if (!agent) throw new CliError({ message: `no agent with role '${role}' in ${agentsModule} (roles: ${agents.map((known) => known.role).join(", ")})` });
  let statek: Statek;
  try {
    statek = await Statek.open({ store, agents });
  } catch (error) {
    throw new CliError({ message: formatError(error), cause: error });
  }
  try {
    const { id } = await statek.submitJob(agent, { vars, params, ...(typeof values.message === "string" ? { message: values.message } : {}) });
    io.stdout.write(values.json ? `${JSON.stringify({ id })}\n` : `${id}\n`);
    return 0;
  } catch (error) {
    throw new CliError({ message: `cannot submit the job: ${formatError(error)}`, cause: error });
  } finally {
    await statek.close();
  }
}

/** `NAME=JSON` assignments of a repeatable option as an object; a usage error (of `command`) names a bad one. */
export function readAssignments(given: string | boolean | string[] | undefined, option: string, command = "submit"): Record<string, unknown> {
  const result: Record<string, unknown> = Object.create(null);
  const list = Array.isArray(given) ? given : typeof given === "string" ? [given] : [];
  for (const assignment of list) {
    const usage = (message: string) => new CliError({ message, exitCode: 2, command });
    const equals = assignment.indexOf("=");
    const name = equals === -1 ? "" : assignment.slice(0, equals);
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw usage(`${option} ${JSON.stringify(assignment)}: expected NAME=JSON with NAME an identifier`);
    if (name in result) throw usage(`${option} ${name} is given twice`);
    const text = assignment.slice(equals + 1);
    try {
      result[name] = JSON.parse(text);
    } catch {
      throw usage(`${option} ${name}: ${JSON.stringify(text)} is not JSON (a string needs quotes: ${name}='"${text}"')`);
    }
  }
  return { ...result };
}
