/**
 * @module
 * `statek worker --agents <module>`: runs the store's jobs as a service until SIGINT or
 * SIGTERM, which stop it gracefully (no new claims; running steps finish within the grace period, the rest are
 * aborted — their tools' `ctx.signal` aborts — and their leases released), then the process exits, even when a
 * tool ignores its signal; a second signal exits at once (the leases it holds then simply expire).
 */
import { Statek } from "../../jobs/statek.ts";
import { DEFAULT_GRACE_MS, DEFAULT_MAX_CONCURRENCY, type WorkerActivity } from "../../jobs/statek-worker.ts";
import { DEFAULT_STORE_PATH } from "../../store/open-store.ts";
import { cliStoreSpec, showStore } from "../open-cli-store.ts";
import { formatError } from "../../tools/call-tool.ts";
import { CliError } from "../../errors/cli-error.ts";
import { AGENTS_OPTION, HELP_OPTION, type Command, type CommandInput } from "../command.ts";
import { formatWorkerActivity, formatWorkerStatus } from "../format-worker-status.ts";
import { agentsModuleOf, loadAgents } from "../load-agents.ts";
import { readCount } from "../read-count.ts";

/** How long a stopped worker lets what is left of aborted tool calls end by itself before it exits anyway. */
const EXIT_WAIT_MS = 1_000;
/** How often the status line is redrawn on a terminal. */
const REDRAW_MS = 250;
/** How often a summary line is logged when the output is not a terminal (if anything happened). */
const SUMMARY_MS = 10_000;

/** `statek worker --agents MODULE [--store STORE] [--concurrency N] [--lease-ms N] [--grace-ms N]`. */
export const workerCommand: Command = {
  name: "worker",
  summary: "Run the store's jobs as a service.",
  description:
    "Claims the store's runnable jobs of the given agents and steps them, at most --concurrency at once,\n" +
    "waking suspended jobs when their timer is due or a message, an approval or a future arrives (also from\n" +
    "other processes). Several workers may share one store. On a terminal a status line shows running,\n" +
    "suspended, done and failed jobs and the step rate; otherwise each finished job is a log line.\n" +
    "SIGINT/SIGTERM stop it gracefully: running steps get --grace-ms to finish, then they are aborted (tools see\n" +
    "their AbortSignal), their leases released, and the process exits. A second signal exits at once (its\n" +
    "leases then expire).",
  arguments: [],
  options: {
    agents: AGENTS_OPTION,
    store: { type: "string", valueName: "STORE", description: `A SQLite file or a postgres:// URL (default $STATEK_STORE, else ${DEFAULT_STORE_PATH}; created if missing).` },
    concurrency: { type: "string", valueName: "N", description: `Steps running at once at most (default ${DEFAULT_MAX_CONCURRENCY}).` },
    "lease-ms": { type: "string", valueName: "MS", description: "How long a lease lasts unless renewed (default 30000)." },
    "grace-ms": { type: "string", valueName: "MS", description: `How long running steps may finish after a stop signal (default ${DEFAULT_GRACE_MS}).` },
    help: HELP_OPTION,
  },
  examples: ["statek worker --agents ./agents.ts", "statek worker --agents ./agents.ts --store ./data/statek.db --concurrency 50"],
  run: runWorker,
};

async function runWorker({ values, io }: CommandInput): Promise<number> {
  const agentsModule = agentsModuleOf(values.agents);
  if (agentsModule === undefined) throw new CliError({ message: "missing --agents MODULE (the module exporting your agents; or set STATEK_AGENTS)", exitCode: 2, command: "worker" });
  const maxConcurrency = readCount(values.concurrency, "--concurrency", "worker") ?? DEFAULT_MAX_CONCURRENCY;
  const leaseMs = readCount(values["lease-ms"], "--lease-ms", "worker");
  const graceMs = readCount(values["grace-ms"], "--grace-ms", "worker") ?? DEFAULT_GRACE_MS;
  const storePath = cliStoreSpec(typeof values.store === "string" ? values.store : undefined);
  const agents = await loadAgents(agentsModule, "worker");
  let statek: Statek;
  try {
    statek = await Statek.open({ store: storePath, agents, ...(leaseMs === undefined ? {} : { leaseMs }) });
  } catch (error) {
    throw new CliError({ message: formatError(error), cause: error });
  }
  const live = io.stdout.isTTY === true;
  const log = (line: string) => io.stdout.write(live ? `\r\x1b[K${line}\n` : `${line}\n`);
  const worker = statek.worker({
    maxConcurrency,
    onActivity: (activity: WorkerActivity) => {
      const line = formatWorkerActivity(activity);
      if (line === undefined) return;
      if (activity.kind === "step-end") {
        if (!live) log(line);
      } else {
        io.stderr.write(live ? `\r\x1b[K${line}\n` : `${line}\n`);
      }
    },
  });
  let signals = 0;
  let requestStop: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals === 1) {
      log(`${new Date().toISOString()} worker: ${signal}: stopping (running steps have ${graceMs} ms to finish; a second signal exits at once)`);
      requestStop();
      return;
    }
    io.stderr.write(`\nstatek worker: ${signal} again: exiting now; the leases it holds expire by themselves\n`);
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let redraw: NodeJS.Timeout | undefined;
  try {
    await worker.start();
    const roles = agents.map((agent) => agent.role).join(", ");
    log(`${new Date().toISOString()} worker: running jobs of ${roles} from ${showStore(storePath)}, at most ${maxConcurrency} steps at once`);
    let lastSteps = 0;
    redraw = setInterval(() => {
      const stats = worker.stats;
      if (live) {
        io.stdout.write(`\r\x1b[K${formatWorkerStatus(stats)}`);
      } else if (stats.steps !== lastSteps) {
        lastSteps = stats.steps;
        log(`${new Date().toISOString()} worker: ${formatWorkerStatus(stats)}`);
      }
    }, live ? REDRAW_MS : SUMMARY_MS);
    await stopRequested;
    clearInterval(redraw);
    await worker.stop({ graceMs });
    log(`${new Date().toISOString()} worker: stopped (${formatWorkerStatus(worker.stats)})`);
    return 0;
  } finally {
    clearInterval(redraw);
    await statek.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    exitOnceIdle(io);
  }
}

/**
 * Once stopped, the process should end when its work has: a tool call that ignored its AbortSignal may still
 * hold the event loop with a timer or a socket, though its step was aborted and its lease released. The timer
 * is unref'd, so a process with nothing left ends on its own before it fires.
 */
function exitOnceIdle(io: CommandInput["io"]): void {
  setTimeout(() => {
    io.stderr.write(`${new Date().toISOString()} worker: exiting; an aborted tool call still held the process (it ignores its AbortSignal)\n`);
    process.exit();
  }, EXIT_WAIT_MS).unref();
}
