/**
 * @module
 * What a well-formed write looks like, checked once above the adapters before anything is written: a bad value
 * is a `TypeError` naming the call and the field, never a row nobody can read back.
 */
import { FUTURE_KINDS, FUTURE_STATES, WAIT_DOORS } from "./durable-rows.ts";
import type { Fence, FutureSettlement, JournalEntry, NewFuture, NewJobEvent } from "./durable-rows.ts";
import { isJobStatus } from "./store-rules.ts";
import { JOB_STATUSES, MAX_MEMORY_CONTEXTS } from "./store.ts";
import type { HistoryRow, JobCommit, JobFork, JobRow, MemoryEntry, VariableRow } from "./store.ts";
import type { AgentJobsRequest, AgentOutcome } from "./agent-rows.ts";

/** Returns what was expected when `value` is wrong, else `undefined`. */
type Expectation = (value: unknown) => string | undefined;

const text: Expectation = (value) => (typeof value === "string" ? undefined : "a string");
const name: Expectation = (value) => (typeof value === "string" && value !== "" ? undefined : "a non-empty string");
const integer: Expectation = (value) => (Number.isSafeInteger(value) ? undefined : "an integer");
const count: Expectation = (value) => (Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : "a non-negative integer");
const nullable = (inner: Expectation): Expectation => (value) => (value === null ? undefined : inner(value) && `${inner(value)} or null`);
const object: Expectation = (value) =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? undefined : "a JSON object";
const status: Expectation = (value) => (isJobStatus(value) ? undefined : `one of ${JOB_STATUSES.join(", ")}`);

/** How each job field must look. */
const forkOrigin: Expectation = (value) => {
  const expected = "{ jobId: a non-empty string, turn: a non-negative integer }";
  if (typeof value !== "object" || value === null || Array.isArray(value)) return expected;
  const { jobId, turn } = value as { jobId?: unknown; turn?: unknown };
  return name(jobId) === undefined && count(turn) === undefined ? undefined : expected;
};

const JOB_FIELDS: { readonly [K in keyof JobRow]-?: Expectation } = {
  id: name,
  role: name,
  status,
  params: object,
  metadata: object,
  parentId: nullable(text),
  createdAt: integer,
  updatedAt: integer,
  version: count,
  turns: count,
  pendingSeq: nullable(count),
  historyLength: count,
  exitStatus: nullable(text),
  error: nullable(text),
  usage: object,
  state: object,
  wakeAt: nullable(integer),
  cell: count,
  forkedFrom: (value) => (value === undefined ? undefined : forkOrigin(value)),
};

/** The job fields a commit may change (the others are the store's, or fixed at insert). */
export const COMMIT_FIELDS = [
  "status", "params", "metadata", "parentId", "turns", "pendingSeq", "historyLength", "exitStatus", "error", "usage", "state",
  "wakeAt", "cell",
] as const satisfies ReadonlyArray<keyof JobRow>;

function fail(call: string, field: string, expected: string, value: unknown): never {
  throw new TypeError(`${call}: ${field} must be ${expected}, got ${describe(value)}`);
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return "an array";
  return value === null || typeof value !== "object" ? String(value) : "an object";
}

function check(call: string, field: string, expectation: Expectation, value: unknown): void {
  const expected = expectation(value);
  if (expected !== undefined) fail(call, field, expected, value);
}

/** A context as stored: a JSON array of non-empty strings, sorted, without duplicates. */
const memoryContext: Expectation = (value) => {
  const expected = "a context (a JSON array of distinct specifiers, sorted)";
  if (typeof value !== "string") return expected;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return expected;
  }
  if (!Array.isArray(parsed) || !parsed.every((item, index) => typeof item === "string" && item !== "" && (index === 0 || parsed[index - 1] < item))) return expected;
  return JSON.stringify(parsed) === value ? undefined : expected;
};

/** Checks the contexts of a memory read. */
export function checkMemoryContexts(contexts: readonly string[]): void {
  if (!Array.isArray(contexts)) fail("readMemory", "contexts", "an array", contexts);
  if (contexts.length > MAX_MEMORY_CONTEXTS) fail("readMemory", "contexts", `at most ${MAX_MEMORY_CONTEXTS} contexts`, `${contexts.length}`);
  contexts.forEach((context, index) => check("readMemory", `contexts[${index}]`, memoryContext, context));
}

/** Checks a shared-memory entry (`putMemory`); its value must be JSON. */
export function checkMemoryEntry(entry: MemoryEntry): void {
  if (typeof entry !== "object" || entry === null) throw new TypeError(`putMemory: expected a memory entry, got ${describe(entry)}`);
  check("putMemory", "context", memoryContext, entry.context);
  check("putMemory", "key", name, entry.key);
  check("putMemory", "category", name, entry.category);
  check("putMemory", "description", text, entry.description);
  check("putMemory", "createdAt", count, entry.createdAt);
  check("putMemory", "updatedAt", count, entry.updatedAt);
  if (entry.value === undefined) fail("putMemory", "value", "a JSON value", entry.value);
}

/** Checks a memory deletion's context and key. */
export function checkMemoryKey(context: string, key: string): void {
  check("deleteMemory", "context", memoryContext, context);
  check("deleteMemory", "key", name, key);
}

/** Checks a whole job row (`insertJob`). */
export function checkJobRow(job: JobRow): void {
  if (typeof job !== "object" || job === null) throw new TypeError(`insertJob: expected a job row, got ${describe(job)}`);
  const call = `insertJob of job ${String(job.id)}`;
  for (const [field, expectation] of Object.entries(JOB_FIELDS)) check(call, field, expectation, job[field as keyof JobRow]);
}

/** Checks a fork (`insertFork`): its row, which must name its origin, its history and its variables. */
export function checkFork(fork: JobFork): void {
  if (typeof fork !== "object" || fork === null) throw new TypeError(`insertFork: expected a fork, got ${describe(fork)}`);
  checkJobRow(fork.job);
  const call = `insertFork of job ${fork.job.id}`;
  if (fork.job.forkedFrom === undefined) throw new TypeError(`${call}: job.forkedFrom must name the job and turn it forks`);
  if (fork.job.forkedFrom.jobId === fork.job.id) throw new TypeError(`${call}: a job cannot be forked from itself`);
  checkVariables(call, fork.putVariables);
  checkHistory(call, fork.history);
}

/** Checks a commit's shape: the fields it changes, its variables, history, futures and events. */
export function checkCommit(change: JobCommit): void {
  if (typeof change !== "object" || change === null) throw new TypeError(`commit: expected a commit, got ${describe(change)}`);
  check("commit", "id", name, change.id);
  const call = `commit to job ${change.id}`;
  check(call, "expectedVersion", count, change.expectedVersion);
  for (const [field, value] of Object.entries(change.job ?? {})) {
    if (value === undefined) continue;
    if (!(COMMIT_FIELDS as readonly string[]).includes(field)) {
      throw new TypeError(`${call}: the field ${field} cannot be changed by a commit (it may change ${COMMIT_FIELDS.join(", ")})`);
    }
    check(call, field, JOB_FIELDS[field as keyof JobRow], value);
  }
  checkVariables(call, change.putVariables ?? []);
  checkList(call, "deleteVariables", change.deleteVariables, (item, field) => check(call, field, text, item));
  checkHistory(call, change.appendHistory ?? []);
  if (change.fence !== undefined) checkFenceShape(call, change.fence);
  if (change.releaseLease && change.fence === undefined) throw new TypeError(`${call}: releaseLease needs the fence of the lease to release`);
  checkNewFutures(call, change.id, change.createFutures ?? []);
  checkList(call, "wakeIfSettled", change.wakeIfSettled, (item, field) => check(call, field, name, item));
  checkList(call, "settleFutures", change.settleFutures, (item, field) => {
    check(call, field, object, item);
    checkSettlement(item.key, item.settlement);
  });
  checkEvents(call, change.events ?? [], false);
  if (change.agentOutcome !== undefined) checkAgentOutcome(call, change.agentOutcome);
}

function checkAgentOutcome(call: string, outcome: AgentOutcome): void {
  check(call, "agentOutcome", object, outcome);
  if (outcome.failed === false) return;
  if (outcome.failed !== true) fail(call, "agentOutcome.failed", "a boolean", (outcome as { failed: unknown }).failed);
  check(call, "agentOutcome.reason", text, outcome.reason);
  if (!(Number.isSafeInteger(outcome.threshold) && outcome.threshold >= 1)) fail(call, "agentOutcome.threshold", "an integer of at least 1", outcome.threshold);
  if (typeof outcome.opensAtOnce !== "boolean") fail(call, "agentOutcome.opensAtOnce", "a boolean", outcome.opensAtOnce);
}

/** Checks an agent's role (every agent call). */
export function checkRole(call: string, role: unknown): void {
  check(call, "role", name, role);
}

/** Checks what `createAgentJobs` is asked. */
export function checkAgentJobsRequest(request: AgentJobsRequest): void {
  const call = "createAgentJobs";
  if (typeof request !== "object" || request === null) throw new TypeError(`${call}: expected { role, limit, source, build }, got ${describe(request)}`);
  check(call, "role", name, request.role);
  check(call, "limit", count, request.limit);
  if (typeof request.build !== "function") fail(call, "build", "a function", request.build);
  const source: unknown = request.source;
  if (typeof source !== "object" || source === null) fail(call, "source", "{ kind: \"loop\", queueSize } or { kind: \"events\" }", source);
  const { kind, queueSize } = source as { kind?: unknown; queueSize?: unknown };
  if (kind === "loop") check(call, "source.queueSize", integer, queueSize);
  else if (kind !== "events") fail(call, "source.kind", "\"loop\" or \"events\"", kind);
  const claim: unknown = request.claimFor;
  if (claim === undefined) return;
  if (typeof claim !== "object" || claim === null) fail(call, "claimFor", "{ owner, leaseMs }", claim);
  const { owner, leaseMs } = claim as { owner?: unknown; leaseMs?: unknown };
  check(call, "claimFor.owner", name, owner);
  check(call, "claimFor.leaseMs", count, leaseMs);
}

function checkList<T>(call: string, field: string, list: readonly T[] | undefined, each: (item: T, field: string) => void): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) fail(call, field, "an array", list);
  list.forEach((item, index) => each(item, `${field}[${index}]`));
}

/** Checks variable rows (`insertJob`, `commit`). */
export function checkVariables(call: string, variables: readonly VariableRow[]): void {
  checkList(call, "variables", variables, (variable, field) => {
    check(call, field, object, variable);
    check(call, `${field}.name`, text, variable.name);
    check(call, `${field}.blob`, text, variable.blob);
    check(call, `${field}.position`, integer, variable.position);
  });
}

/** Checks history records' shape (their order is checked against the job in the transaction). */
export function checkHistory(call: string, history: readonly HistoryRow[]): void {
  checkList(call, "history", history, (record, field) => {
    check(call, field, object, record);
    check(call, `${field}.seq`, count, record.seq);
    check(call, `${field}.kind`, name, record.kind);
    check(call, `${field}.at`, integer, record.at);
  });
}

/** Checks a fence's shape. */
export function checkFenceShape(call: string, fence: Fence): void {
  check(call, "fence", object, fence);
  check(call, "fence.owner", name, fence.owner);
  check(call, "fence.epoch", count, fence.epoch);
}

/** Checks journal entries' shape (their indices are checked against the journal in the transaction). */
export function checkJournalEntries(call: string, cell: number, entries: readonly JournalEntry[]): void {
  check(call, "cell", count, cell);
  checkList(call, "entries", entries, (entry, field) => {
    check(call, field, object, entry);
    check(call, `${field}.index`, count, entry.index);
  });
}

/** Checks futures to create for job `jobId`. */
export function checkNewFutures(call: string, jobId: string, futures: readonly NewFuture[]): void {
  checkList(call, "createFutures", futures, (future, field) => {
    check(call, field, object, future);
    check(call, `${field}.key`, name, future.key);
    if (future.jobId !== jobId) fail(call, `${field}.jobId`, `the job's id ${JSON.stringify(jobId)}`, future.jobId);
    if (!(FUTURE_KINDS as readonly unknown[]).includes(future.kind)) fail(call, `${field}.kind`, `one of ${FUTURE_KINDS.join(", ")}`, future.kind);
    check(call, `${field}.wakeAt`, nullable(integer), future.wakeAt);
  });
}

/** Checks a settlement. */
export function checkSettlement(key: string, settlement: FutureSettlement): void {
  check("settleFuture", "key", name, key);
  const call = `settleFuture of ${JSON.stringify(key)}`;
  check(call, "settlement", object, settlement);
  const states = FUTURE_STATES.filter((state) => state !== "waiting");
  if (!(states as readonly unknown[]).includes(settlement.state)) fail(call, "settlement.state", `one of ${states.join(", ")}`, settlement.state);
  if (!(WAIT_DOORS as readonly unknown[]).includes(settlement.door)) fail(call, "settlement.door", `one of ${WAIT_DOORS.join(", ")}`, settlement.door);
}

/** Checks events; `needJobId` when nothing else names their job. */
export function checkEvents(call: string, events: ReadonlyArray<NewJobEvent>, needJobId: boolean): void {
  checkList(call, "events", events, (event, field) => {
    check(call, field, object, event);
    check(call, `${field}.kind`, name, event.kind);
    if (needJobId || event.jobId !== undefined) check(call, `${field}.jobId`, name, event.jobId);
  });
}

/** Checks a lease request's owner and length. */
export function checkClaim(call: string, owner: string, leaseMs: number): void {
  check(call, "owner", name, owner);
  check(call, "leaseMs", count, leaseMs);
}

/** Checks a count argument (a limit, an offset, an id to read after). */
export function checkCount(call: string, field: string, value: unknown): void {
  check(call, field, count, value);
}

/** Checks a job id argument. */
export function checkId(call: string, field: string, value: unknown): void {
  check(call, field, name, value);
}

/** Checks a roles filter. */
export function checkRoles(call: string, roles: readonly string[] | undefined): void {
  checkList(call, "roles", roles, (role, field) => check(call, field, name, role));
}
