/**
 * @module
 * The rules of agents that run themselves, written once above the adapters, each applied inside one adapter
 * transaction that starts by locking the agent's row (`lockAgent`): creating an agent's jobs from its events
 * or for its loop (the count of pending jobs and the inserts under that one lock, so two workers never
 * overshoot a loop's queue or take one event twice), counting a job's end for the breaker, resetting it.
 */
import type { AgentEventRow, AgentJobsRequest, AgentJobsResult, AgentOutcome, AgentRow, BreakerState } from "./agent-rows.ts";
import { BREAKER_STATES } from "./agent-rows.ts";
import type { AdapterTransaction, AgentValues, StoredRow } from "./store-adapter.ts";
import { orNull, readInteger, readStrict, readText } from "./store-rows.ts";
import { insertJobIn, appendEventsIn } from "./store-writes.ts";
import { claimedLease } from "./store-rules.ts";
import type { Lease } from "./durable-rows.ts";

/** Where a field of an agent's row is named in errors. */
const placeOf = (role: string) => ({ jobId: `(agent ${role})`, prefix: "agents" });

const readBreaker = (value: unknown): BreakerState => {
  const found = BREAKER_STATES.find((state) => state === value);
  if (found === undefined) throw new Error(`unknown breaker state ${JSON.stringify(value)}`);
  return found;
};

/** A stored agent row (read strictly: the rules need every field), with its count of queued events. */
export function decodeAgent(row: StoredRow, queuedEvents: number): AgentRow {
  const role = readText(row["role"]);
  const place = placeOf(role);
  return {
    role,
    breaker: readStrict(row, "state", readBreaker, place),
    reason: readStrict(row, "reason", orNull(readText), place),
    openedAt: readStrict(row, "openedAt", orNull(readInteger), place),
    failures: readStrict(row, "failures", readInteger, place),
    loopSize: readStrict(row, "loopSize", orNull(readInteger), place),
    loopAt: readStrict(row, "loopAt", orNull(readInteger), place),
    queuedEvents,
  };
}

/** A stored agent event. */
export function decodeAgentEvent(row: StoredRow): AgentEventRow {
  const role = String(row["role"]);
  const place = { jobId: `(agent ${role})`, prefix: `agent_events[${String(row["id"])}]` };
  return {
    id: readStrict(row, "id", readInteger, place),
    role: readStrict(row, "role", readText, place),
    blob: readStrict(row, "data", readText, place),
    at: readStrict(row, "at", readInteger, place),
  };
}

/** The row a role gets when it is first locked: a closed breaker. */
function closedAgent(role: string, now: number): AgentValues {
  return { role, state: "closed", reason: null, openedAt: null, failures: 0, loopSize: null, loopAt: null, updatedAt: now };
}

async function lockAgentIn(transaction: AdapterTransaction, role: string, now: number): Promise<AgentRow> {
  return decodeAgent(await transaction.lockAgent(closedAgent(role, now)), 0);
}

/** `pushAgentEvent`: appended to the role's FIFO. */
export async function pushAgentEventIn(transaction: AdapterTransaction, role: string, blob: string): Promise<number> {
  return readInteger(await transaction.insertAgentEvent({ role, data: blob, at: await transaction.now() }));
}

/**
 * `createAgentJobs`: with the agent locked and its breaker closed, a loop gets `min(limit, queueSize − pending)`
 * jobs (none when that is ≤ 0; pending: its `READY` and `WARMING_UP` jobs, counted now), events get one job
 * each, oldest first, up to `limit`, and are deleted with it.
 */
export async function createAgentJobsIn(transaction: AdapterTransaction, request: AgentJobsRequest): Promise<AgentJobsResult> {
  const { role, limit, source } = request;
  const now = await transaction.now();
  const agent = await lockAgentIn(transaction, role, now);
  // What a loop read is shown to operators (`statek agents`), whatever the breaker says.
  if (source.kind === "loop") await transaction.updateAgent(role, { loopSize: source.queueSize, loopAt: now, updatedAt: now });
  if (agent.breaker === "open") return { jobIds: [], breaker: "open" };
  const jobIds: string[] = [];
  const leases: Lease[] = [];
  const insert = async (event: AgentEventRow | undefined) => {
    const { job, variables, history } = request.build(event);
    if (job.role !== role) throw new Error(`createAgentJobs: a job built for agent '${role}' has role '${job.role}'`);
    const claim = request.claimFor;
    const lease = claim ? claimedLease(job.id, { owner: null, epoch: 0, until: null }, claim.owner, claim.leaseMs, now) : undefined;
    await insertJobIn(transaction, job, variables, history, lease);
    jobIds.push(job.id);
    if (lease) leases.push(lease);
  };
  if (source.kind === "loop") {
    const pending = readInteger(await transaction.countPendingJobs(role));
    const count = Math.min(limit, source.queueSize - pending);
    for (let index = 0; index < count; index++) await insert(undefined);
  } else {
    const events = (await transaction.readAgentEvents(role, limit)).map(decodeAgentEvent);
    for (const event of events) await insert(event);
    if (events.length) await transaction.deleteAgentEvents(events.map((event) => event.id));
  }
  return { jobIds, ...(request.claimFor ? { leases } : {}), breaker: "closed" };
}

/** A commit's `agentOutcome`: `DONE` clears the count of failures in a row, `FAILED` adds one and may open the breaker. */
export async function countOutcomeIn(transaction: AdapterTransaction, role: string, jobId: string, outcome: AgentOutcome, now: number): Promise<void> {
  const agent = await lockAgentIn(transaction, role, now);
  if (!outcome.failed) {
    if (agent.failures !== 0) await transaction.updateAgent(role, { failures: 0, updatedAt: now });
    return;
  }
  const failures = agent.failures + 1;
  const opens = agent.breaker === "closed" && (outcome.opensAtOnce || failures >= outcome.threshold);
  if (!opens) return transaction.updateAgent(role, { failures, updatedAt: now });
  const reason = outcome.opensAtOnce ? outcome.reason : `${failures} jobs in a row failed; the last: ${outcome.reason}`;
  await transaction.updateAgent(role, { failures, state: "open", reason, openedAt: now, updatedAt: now });
  await appendEventsIn(transaction, [{ jobId, kind: "agent-breaker", data: { role, state: "open", reason } }], now);
}

/** `resetAgent`: closes the breaker; `true` (with an `agent-breaker` event) when it was open. */
export async function resetAgentIn(transaction: AdapterTransaction, role: string): Promise<boolean> {
  const now = await transaction.now();
  const agent = await lockAgentIn(transaction, role, now);
  if (agent.breaker === "closed" && agent.failures === 0) return false;
  await transaction.updateAgent(role, { state: "closed", reason: null, openedAt: null, failures: 0, updatedAt: now });
  if (agent.breaker === "closed") return false;
  // Not one job's event: the job id is empty (the agent's role is in the data).
  await transaction.insertEvents([{ jobId: "", kind: "agent-breaker", at: now, data: JSON.stringify({ role, state: "closed" }) }]);
  return true;
}
