/**
 * @module
 * `statek agents`: per agent, its jobs by status, the queue size its loop read last, its queued events and its
 * circuit breaker (`statek.agents()`); `--reset ROLE` closes a breaker first.
 */
import { Statek } from "../../jobs/statek.ts";
import type { AgentOverview } from "../../jobs/operate/agents-overview.ts";
import { formatLocalTime } from "../../format/format-time.ts";
import { AGENTS_OPTION, HELP_OPTION, JSON_OPTION, STORE_OPTION, type Command, type CommandInput } from "../command.ts";
import { formatTable } from "../format-table.ts";
import { loadAgents } from "../load-agents.ts";
import { openCliStore } from "../open-cli-store.ts";
import { truncateLine } from "../truncate-text.ts";

const REASON_MAX_CHARS = 60;

/** `statek agents [--agents MODULE] [--reset ROLE] [--json] [--store PATH]`. */
export const agentsCommand: Command = {
  name: "agents",
  summary: "Show each agent's jobs, loop, queued events and circuit breaker.",
  description:
    "Lists the agents the store knows (and those of --agents), by role: their jobs by status, the queue size\n" +
    "their agentic loop read last, their queued events, and their circuit breaker (closed, or open since when\n" +
    "and why). --reset ROLE closes that agent's breaker first; events queued meanwhile are kept.",
  arguments: [],
  options: {
    agents: { ...AGENTS_OPTION, description: "A module exporting agents to list even when the store has nothing of them yet." },
    reset: { type: "string", valueName: "ROLE", description: "Close this agent's circuit breaker first." },
    json: { ...JSON_OPTION, description: "Print the agents as a JSON array." },
    store: STORE_OPTION,
    help: HELP_OPTION,
  },
  examples: ["statek agents", "statek agents --reset order_handler", "statek agents --agents ./agents.ts --json"],
  run: runAgents,
};

async function runAgents({ values, io }: CommandInput): Promise<number> {
  const agents = typeof values.agents === "string" ? await loadAgents(values.agents, "agents") : [];
  const store = await openCliStore(values.store as string | undefined);
  try {
    const statek = await Statek.open({ store, agents });
    try {
      if (typeof values.reset === "string") {
        const health = await statek.resetAgent(values.reset);
        if (!values.json) io.stdout.write(`${health.role}: breaker closed (${health.queuedEvents} queued events kept)\n`);
      }
      const overview = await statek.agents();
      if (values.json) io.stdout.write(JSON.stringify(overview, null, 2) + "\n");
      else if (overview.length === 0) io.stdout.write("no agents (the store has none, and no --agents module was given)\n");
      else io.stdout.write(formatAgents(overview).join("\n") + "\n");
      return 0;
    } finally {
      await statek.close();
    }
  } finally {
    await store.close();
  }
}

/** The agents as a table, one row each. */
export function formatAgents(overview: readonly AgentOverview[]): string[] {
  const count = (value: number) => String(value);
  return formatTable(
    [
      { header: "AGENT" }, { header: "READY", align: "right" }, { header: "RUNNING", align: "right" }, { header: "SUSPENDED", align: "right" },
      { header: "DONE", align: "right" }, { header: "FAILED", align: "right" }, { header: "CANCELLED", align: "right" }, { header: "LOOP", align: "right" },
      { header: "EVENTS", align: "right" }, { header: "BREAKER" },
    ],
    overview.map((agent) => [
      agent.role,
      count(agent.jobs.READY),
      count(agent.jobs.WARMING_UP + agent.jobs.STARTED),
      count(agent.jobs.SUSPENDED),
      count(agent.jobs.DONE),
      count(agent.jobs.FAILED),
      count(agent.jobs.CANCELLED),
      agent.loopSize === undefined ? "-" : count(agent.loopSize),
      count(agent.queuedEvents),
      agent.state === "closed"
        ? agent.failures ? `closed (${agent.failures} failed in a row)` : "closed"
        : `OPEN since ${formatLocalTime(agent.openedAt ?? 0)}: ${truncateLine(agent.reason ?? "", REASON_MAX_CHARS)}`,
    ]),
  );
}
