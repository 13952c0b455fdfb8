/**
 * @module
 * Turns what an adapter read back into store rows, checking every field, never casting. A field that cannot be
 * read does not throw here: it becomes a property that throws {@link CorruptRecordError} (naming the job and
 * the field) when it is read, so one damaged row never hides the others and a commit that replaces the field
 * repairs it. Fields the store itself must understand to apply its rules (versions, leases, journal indices)
 * are read strictly by the callers that need them.
 *
 * Adapters hand back column values as their driver gives them: JSON as text or already parsed, integers as
 * numbers, bigints or decimal strings (PostgreSQL's `bigint`).
 */
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import { FUTURE_KINDS, FUTURE_STATES } from "./durable-rows.ts";
import type { FutureKind, FutureRow, FutureState, JobEventRow, JournalEntry } from "./durable-rows.ts";
import type { StoredRow } from "./store-adapter.ts";
import { isJobStatus, type StoredLease } from "./store-rules.ts";
import type { ForkOrigin, HistoryRow, JobRow, JobStatus, JsonValue, MemoryEntry, VariableRow } from "./store.ts";

/** Reads one field; throws an `Error` saying what is wrong with it. */
type Reader<T> = (value: unknown) => T;

/** An integer column (number, bigint or decimal text). */
export const readInteger: Reader<number> = (value) => {
  const number = typeof value === "bigint" ? Number(value) : typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number)) throw new Error(`not an integer: ${preview(value)}`);
  return number;
};

/** A text column. */
export const readText: Reader<string> = (value) => {
  if (typeof value !== "string") throw new Error(`not a text: ${preview(value)}`);
  return value;
};

/** A nullable column. */
export const orNull = <T>(reader: Reader<T>): Reader<T | null> => (value) => (value === null || value === undefined ? null : reader(value));

/** A JSON column: text to parse, or a value the driver parsed already (walked: a driver's objects are not trusted). */
export const readJson: Reader<JsonValue> = (value) => {
  if (typeof value === "string") return parseJson(value);
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "object") return checkJson(value, 0);
  throw new Error(`not JSON: ${preview(value)}`);
};

/** A JSON column that must hold an object. */
export const readJsonObject: Reader<Record<string, JsonValue>> = (value) => {
  const json = readJson(value);
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not a JSON object");
  return json;
};

const readStatus: Reader<JobStatus> = (value) => {
  if (!isJobStatus(value)) throw new Error(`unknown status ${preview(value)}`);
  return value;
};

const oneOf = <T extends string>(values: readonly T[], what: string): Reader<T> => (value) => {
  const found = values.find((candidate) => candidate === value);
  if (found === undefined) throw new Error(`unknown ${what} ${preview(value)}`);
  return found;
};

function parseJson(text: string): JsonValue {
  // JSON.parse yields JSON values only (no undefined, functions or non-finite numbers): nothing to walk.
  const value: JsonValue = JSON.parse(text);
  return value;
}

function checkJson(value: unknown, depth: number): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("not JSON: a number that is not finite");
    return value;
  }
  if (depth > 10_000) throw new Error("not JSON: nested too deeply");
  if (Array.isArray(value)) return value.map((item) => checkJson(item, depth + 1));
  if (typeof value === "object") {
    const result: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) result[key] = checkJson(item, depth + 1);
    return result;
  }
  throw new Error(`not JSON: ${preview(value)}`);
}

function preview(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value instanceof Uint8Array) return `a blob of ${value.length} bytes`;
  return typeof value === "bigint" ? `${value}n` : String(value);
}

/** Where a damaged field lives and whose it is, for the error. */
interface Place {
  jobId: string;
  /** `jobs`, `history[3]`, `journal[0]`, `futures["k"]`, … */
  prefix: string;
}

/**
 * Builds an object whose fields are read with their readers: a field that fails becomes a property that
 * throws `CorruptRecordError` (location `<prefix>.<field>`, or `<prefix>` alone for `data`-like fields when
 * `bare` names them).
 */
function decodeFields<T extends object>(row: StoredRow, place: Place, readers: { readonly [K in keyof T]-?: Reader<T[K]> }, bare: ReadonlyArray<keyof T> = []): T {
  const result: Partial<T> = {};
  for (const key of Object.keys(readers) as Array<keyof T & string>) {
    try {
      result[key] = readers[key](row[key]);
    } catch (cause) {
      const location = bare.includes(key) ? place.prefix : `${place.prefix}.${key}`;
      const error = new CorruptRecordError({ jobId: place.jobId, location, cause });
      Object.defineProperty(result, key, { enumerable: true, configurable: true, get: () => { throw error; } });
    }
  }
  // Every reader ran: each key is either a value or a getter that throws.
  return result as T;
}

/** A fork's origin: `{ jobId, turn }` as JSON text. */
const readForkOrigin: Reader<ForkOrigin> = (value) => {
  const json = readJsonObject(value);
  const { jobId, turn } = json;
  if (typeof jobId !== "string" || jobId === "" || !Number.isSafeInteger(turn) || (turn as number) < 0) throw new Error(`not a fork origin: ${preview(value)}`);
  return { jobId, turn: turn as number };
};

const JOB_READERS: { readonly [K in keyof Omit<JobRow, "forkedFrom">]-?: Reader<JobRow[K]> } = {
  id: readText,
  role: readText,
  status: readStatus,
  params: readJsonObject,
  metadata: readJsonObject,
  parentId: orNull(readText),
  createdAt: readInteger,
  updatedAt: readInteger,
  version: readInteger,
  turns: readInteger,
  pendingSeq: orNull(readInteger),
  historyLength: readInteger,
  exitStatus: orNull(readText),
  error: orNull(readText),
  usage: readJsonObject,
  state: readJsonObject,
  wakeAt: orNull(readInteger),
  cell: readInteger,
};

/** The id of a stored job row, as text even when damaged (errors must name the job). */
export function jobIdOf(row: StoredRow): string {
  return String(row["id"]);
}

/** A stored job row as a {@link JobRow}; unreadable fields throw when read (location `jobs.<field>`). */
export function decodeJob(row: StoredRow): JobRow {
  const place = { jobId: jobIdOf(row), prefix: "jobs" };
  const job: JobRow = decodeFields<Omit<JobRow, "forkedFrom">>(row, place, JOB_READERS);
  // Present only on a fork, so that a job that is no fork reads as it was written.
  const forked = row["forkedFrom"];
  if (forked !== null && forked !== undefined) Object.assign(job, decodeFields<Pick<JobRow, "forkedFrom">>(row, place, { forkedFrom: readForkOrigin }));
  return job;
}

/** What the rules read of a locked job: a status or wakeAt that cannot be read is `undefined` (a commit may repair it). */
export interface LockedJob {
  status: JobStatus | undefined;
  version: number;
  historyLength: number;
  wakeAt: number | null | undefined;
  /** `undefined` when it cannot be read (a commit may repair it). */
  turns: number | undefined;
  /** The first turn the job's variable versions are kept from; `undefined` when it cannot be read. */
  versionsFrom: number | undefined;
}

/** Reads a field, or `undefined` when it cannot be read. */
function lenient<T>(row: StoredRow, field: string, reader: Reader<T>): T | undefined {
  try {
    return reader(row[field]);
  } catch {
    return undefined;
  }
}

/** The fields of a locked job row the rules read; `version` and `historyLength` strictly. */
export function decodeLockedJob(row: StoredRow): LockedJob {
  const place = { jobId: jobIdOf(row), prefix: "jobs" };
  return {
    status: lenient(row, "status", readStatus),
    version: readStrict(row, "version", readInteger, place),
    historyLength: readStrict(row, "historyLength", readInteger, place),
    wakeAt: lenient(row, "wakeAt", orNull(readInteger)),
    turns: lenient(row, "turns", readInteger),
    versionsFrom: lenient(row, "versionsFrom", readInteger),
  };
}

/** A variable version as read back; a `turn` or `name` that cannot be read throws {@link CorruptRecordError}. */
export function decodeVariableVersion(jobId: string, row: StoredRow): { name: string; turn: number; position: number; blob: string | null } {
  const place = { jobId, prefix: `variableVersions[${JSON.stringify(String(row["name"]))}]` };
  return {
    name: readStrict(row, "name", readText, place),
    turn: readStrict(row, "turn", readInteger, place),
    position: readStrict(row, "position", readInteger, place),
    blob: readStrict(row, "blob", orNull(readText), place),
  };
}

/** What a claim reads of a candidate row; a field that cannot be read is `undefined`. */
export function decodeClaimCandidate(row: StoredRow): { id: string; role?: string; status?: JobStatus; wakeAt?: number | null; createdAt?: number } {
  return {
    id: jobIdOf(row),
    role: lenient(row, "role", readText),
    status: lenient(row, "status", readStatus),
    wakeAt: lenient(row, "wakeAt", orNull(readInteger)),
    createdAt: lenient(row, "createdAt", readInteger),
  };
}

/** The lease columns of a stored job row, read strictly: the store cannot apply its rules to a damaged lease. */
export function decodeLease(row: StoredRow): StoredLease {
  const jobId = jobIdOf(row);
  const read = <T>(field: string, reader: Reader<T>): T => {
    try {
      return reader(row[field]);
    } catch (cause) {
      throw new CorruptRecordError({ jobId, location: `jobs.${field}`, cause });
    }
  };
  return { owner: read("leaseOwner", orNull(readText)), epoch: read("leaseEpoch", readInteger), until: read("leaseUntil", orNull(readInteger)) };
}

/** Reads one field of a stored row strictly, as {@link CorruptRecordError} when it cannot be read. */
export function readStrict<T>(row: StoredRow, field: string, reader: Reader<T>, place: Place): T {
  try {
    return reader(row[field]);
  } catch (cause) {
    throw new CorruptRecordError({ jobId: place.jobId, location: `${place.prefix}.${field}`, cause });
  }
}

/** A stored variable row; unreadable fields throw when read (location `variables[<name>].<field>`). */
export function decodeVariable(jobId: string, row: StoredRow): VariableRow {
  const prefix = `variables[${JSON.stringify(String(row["name"]))}]`;
  return decodeFields<VariableRow>(row, { jobId, prefix }, { name: readText, blob: readText, position: readInteger });
}

/** A stored history row; an unreadable `data` throws when read (location `history[<seq>]`). */
export function decodeHistoryRow(jobId: string, row: StoredRow): HistoryRow {
  const prefix = `history[${String(row["seq"])}]`;
  return decodeFields<HistoryRow>(row, { jobId, prefix }, { seq: readInteger, kind: readText, at: readInteger, data: readJson }, ["data"]);
}

/** A stored journal row; an unreadable `data` throws when read (location `journal[<index>]`). */
export function decodeJournalEntry(jobId: string, row: StoredRow): JournalEntry {
  const prefix = `journal[${String(row["index"])}]`;
  return decodeFields<JournalEntry>(row, { jobId, prefix }, { index: readInteger, data: readJson }, ["data"]);
}

const FUTURE_READERS: { readonly [K in keyof FutureRow]-?: Reader<FutureRow[K]> } = {
  key: readText,
  jobId: orNull(readText),
  kind: oneOf<FutureKind>(FUTURE_KINDS, "kind"),
  wakeAt: orNull(readInteger),
  state: oneOf<FutureState>(FUTURE_STATES, "state"),
  value: readJson,
  data: readJson,
  createdAt: readInteger,
  settledAt: orNull(readInteger),
};

/** The job a stored future belongs to, for errors (`(none)` for one settled before any job created it). */
function futureJobOf(row: StoredRow): string {
  return typeof row["jobId"] === "string" ? row["jobId"] : "(none)";
}

/** A stored future; unreadable fields throw when read (location `futures[<key>].<field>`). */
export function decodeFuture(row: StoredRow): FutureRow {
  return decodeFields<FutureRow>(row, { jobId: futureJobOf(row), prefix: `futures[${JSON.stringify(String(row["key"]))}]` }, FUTURE_READERS);
}

/** The state of a stored future, read strictly (first-writer-wins needs it). */
export function futureStateOf(row: StoredRow): FutureState {
  return readStrict(row, "state", oneOf<FutureState>(FUTURE_STATES, "state"), { jobId: futureJobOf(row), prefix: `futures[${JSON.stringify(String(row["key"]))}]` });
}

/** The job of a stored future, read strictly. */
export function futureJobIdOf(row: StoredRow): string | null {
  return readStrict(row, "jobId", orNull(readText), { jobId: futureJobOf(row), prefix: `futures[${JSON.stringify(String(row["key"]))}]` });
}

/** A stored shared-memory entry; unreadable fields throw when read (location `memory[<context>:<key>].<field>`). */
export function decodeMemory(row: StoredRow): MemoryEntry {
  const place = { jobId: "(shared memory)", prefix: `memory[${String(row["context"])}:${String(row["key"])}]` };
  return decodeFields<MemoryEntry>(row, place, {
    context: readText, key: readText, category: readText, value: readJson, description: readText, createdAt: readInteger, updatedAt: readInteger,
  });
}

/** The kind and timeout of a stored future, read strictly (which door settles it depends on them). */
export function futureKindOf(row: StoredRow): { kind: FutureKind; wakeAt: number | null } {
  const place = { jobId: futureJobOf(row), prefix: `futures[${JSON.stringify(String(row["key"]))}]` };
  return { kind: readStrict(row, "kind", oneOf<FutureKind>(FUTURE_KINDS, "kind"), place), wakeAt: readStrict(row, "wakeAt", orNull(readInteger), place) };
}

/** A stored event; unreadable fields throw when read (location `events[<id>].<field>`). */
export function decodeEvent(row: StoredRow): JobEventRow {
  const place = { jobId: String(row["jobId"]), prefix: `events[${String(row["id"])}]` };
  return decodeFields<JobEventRow>(row, place, { id: readInteger, jobId: readText, kind: readText, at: readInteger, data: readJson });
}
