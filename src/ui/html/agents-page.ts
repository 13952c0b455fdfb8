/**
 * @module
 * The agents page (`/agents`): per agent, its jobs by status (each a link to the jobs list filtered so), the
 * queue size its loop read last, its queued events, and its circuit breaker — with a form that resets an open one.
 */
import { html } from "hono/html";
import type { AgentOverview } from "../../jobs/operate/agents-overview.ts";
import { JOB_STATUSES } from "../../store/store.ts";
import { CSRF_FIELD } from "../ui-csrf.ts";
import { time } from "./format.ts";
import type { Html } from "./html-types.ts";
import { banner } from "./layout.ts";

/** What the agents page shows. */
export interface AgentsPageData {
  agents: readonly AgentOverview[];
  csrf: string;
  notice?: string;
  problem?: string;
}

/** The agents page's `<main>` content. */
export function agentsPage(data: AgentsPageData): Html {
  return html`<h1>Agents</h1>
${banner("notice", data.notice)}${banner("problem", data.problem)}
${data.agents.length === 0 ? html`<p>No agents yet: none is registered with this UI's process and the store knows none.</p>` : html`<div class="wide" role="region" aria-label="Agents" tabindex="0"><table class="agents">
<caption class="meta">Jobs by status, the queue size each loop read last, queued events and the circuit breaker</caption>
<thead><tr><th scope="col">Agent</th>${JOB_STATUSES.map((status) => html`<th scope="col" class="num">${status}</th>`)}<th scope="col" class="num">Loop</th><th scope="col" class="num">Queued events</th><th scope="col">Breaker</th></tr></thead>
<tbody>${data.agents.map((agent) => agentRow(agent, data.csrf))}</tbody>
</table></div>`}`;
}

function agentRow(agent: AgentOverview, csrf: string): Html {
  const role = encodeURIComponent(agent.role);
  return html`<tr id="agent-${agent.role}">
<th scope="row">${agent.role}</th>
${JOB_STATUSES.map((status) => html`<td class="num"><a href="/?agent=${role}&amp;status=${status}" aria-label="${agent.role}: ${agent.jobs[status]} ${status}">${agent.jobs[status].toLocaleString("en-US")}</a></td>`)}
<td class="num">${agent.loopSize === undefined ? "–" : agent.loopSize.toLocaleString("en-US")}</td>
<td class="num">${agent.queuedEvents.toLocaleString("en-US")}</td>
<td>${agent.state === "open"
    ? html`<strong class="problem-text">Open</strong> since ${time(agent.openedAt ?? 0)}: ${agent.reason ?? ""}
<form method="post" action="/agents/${role}/reset"><input type="hidden" name="${CSRF_FIELD}" value="${csrf}"><button aria-label="Reset the breaker of ${agent.role}">Reset</button></form>`
    : html`Closed${agent.failures ? ` (${agent.failures} failed in a row)` : ""}`}</td>
</tr>`;
}
