/**
 * @module
 * History records as stored and as the job runner reads them ("history read from the store is
 * decoded and version-checked, never cast"). A record's data is written with its kind's version in `v`; reading
 * checks the kind, the version (a record without `v` is version 1; a newer version than this code knows is
 * refused rather than misread; an older one is upgraded by `UPGRADES`), then the data's shape
 * (`history-schemas.ts`). A record that fails is a `CorruptRecordError` naming the job, the record's `seq` and
 * kind, so the runner fails that one job.
 *
 * Changing a record kind's shape: bump its entry in {@link HISTORY_VERSIONS}, change its schema, and add an
 * upgrade from the previous version to `UPGRADES`, so records already stored keep reading.
 */
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import type { HistoryRow, JsonValue } from "../../store/store.ts";
import type { HistoryKind, HistoryRecord, HistoryRecordData } from "./history.ts";
import { HISTORY_SCHEMAS } from "./history-schemas.ts";

/** The version each record kind is written with. */
export const HISTORY_VERSIONS: { readonly [K in HistoryKind]: number } = {
  submitted: 3,
  "user-message": 1,
  "model-response": 1,
  "model-attempt": 1,
  console: 1,
  "tool-call": 1,
  variables: 1,
  status: 1,
  warmup: 1,
  dialog: 1,
  "post-processed": 1,
  "error-handler": 1,
  "operator-action": 1,
  approval: 1,
  "child-ended": 1,
  difficulty: 1,
  reminder: 1,
  "type-check": 1,
};

/** Upgrades from version `n` to `n + 1` of a kind's data (`v` already removed). */
const UPGRADES: { readonly [K in HistoryKind]?: Readonly<Record<number, (data: Record<string, unknown>) => Record<string, unknown>>> } = {
  // 2 added the optional `trace` (the submitter's trace context): a version-1 record simply has none.
  // 3 added the warmup blocks' formal calls and metadata, and the job's memory binding: absent before.
  submitted: { 1: (data) => data, 2: (data) => data },
};

/** Each kind's records, keyed by kind. */
type RecordOfKind = { [K in HistoryKind]: { seq: number; kind: K; at: number; data: HistoryRecordData[K] } };

/** Builds records of one kind. */
type Builder<K extends HistoryKind> = (seq: number, at: number, data: HistoryRecordData[K]) => RecordOfKind[K];
const builder = <K extends HistoryKind>(kind: K) => (seq: number, at: number, data: HistoryRecordData[K]) => ({ seq, kind, at, data });

/** One builder per kind: what lets a record of a kind known only as a type parameter be built without a cast. */
const BUILDERS: { readonly [K in HistoryKind]: Builder<K> } = {
  submitted: builder("submitted"),
  "user-message": builder("user-message"),
  "model-response": builder("model-response"),
  "model-attempt": builder("model-attempt"),
  console: builder("console"),
  "tool-call": builder("tool-call"),
  variables: builder("variables"),
  status: builder("status"),
  warmup: builder("warmup"),
  dialog: builder("dialog"),
  "post-processed": builder("post-processed"),
  "error-handler": builder("error-handler"),
  "operator-action": builder("operator-action"),
  approval: builder("approval"),
  "child-ended": builder("child-ended"),
  difficulty: builder("difficulty"),
  reminder: builder("reminder"),
  "type-check": builder("type-check"),
};

/** True for a record kind this version of STATEK knows. */
export function isHistoryKind(kind: string): kind is HistoryKind {
  return Object.hasOwn(HISTORY_SCHEMAS, kind);
}

/** A history record of `kind` (for records a step appends). */
export function historyRecord<K extends HistoryKind>(seq: number, kind: K, at: number, data: HistoryRecordData[K]): HistoryRecord {
  return BUILDERS[kind](seq, at, data);
}

/** The data a new record of `kind` is stored with: its fields and its kind's version `v`. */
export function encodeHistoryData<K extends HistoryKind>(kind: K, data: HistoryRecordData[K]): JsonValue {
  const encoded = { v: HISTORY_VERSIONS[kind], ...data };
  // The record types hold JSON values only (`history.ts`); this is where one becomes the store's JsonValue,
  // and every read checks it again.
  return encoded as unknown as JsonValue;
}

/** A stored row as a new record of `kind` (`seq` and `at` as given). */
export function encodeHistoryRow<K extends HistoryKind>(seq: number, kind: K, at: number, data: HistoryRecordData[K]): HistoryRow {
  return { seq, kind, at, data: encodeHistoryData(kind, data) };
}

/** Decodes one stored record of job `jobId`; throws `CorruptRecordError` (location `history[seq] (kind)`). */
export function decodeHistoryRecord(jobId: string, row: HistoryRow): HistoryRecord {
  const { seq, kind } = row;
  const fail = (reason: string, cause?: unknown): never => {
    const error = new Error(reason, cause === undefined ? undefined : { cause });
    throw new CorruptRecordError({ jobId, location: `history[${seq}] (${kind})`, cause: error });
  };
  let data: JsonValue;
  try {
    data = row.data; // a field the store could not read throws CorruptRecordError here
  } catch (error) {
    if (!(error instanceof CorruptRecordError)) throw error;
    return fail(error.cause instanceof Error ? error.cause.message : error.message, error);
  }
  if (!isHistoryKind(kind)) return fail(`unknown record kind ${JSON.stringify(kind)} (written by a newer STATEK?)`);
  return decodeKind(kind, seq, row.at, data, fail);
}

function decodeKind<K extends HistoryKind>(kind: K, seq: number, at: number, data: JsonValue, fail: (reason: string) => never): HistoryRecord {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return fail("its data is not an object");
  const { v = 1, ...fields } = data;
  const current = HISTORY_VERSIONS[kind];
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) return fail(`bad version ${JSON.stringify(v)}`);
  if (v > current) return fail(`record version ${v} was written by a newer STATEK (this one reads ${kind} records up to version ${current})`);
  let upgraded: Record<string, unknown> = fields;
  for (let version = v; version < current; version++) {
    const upgrade = UPGRADES[kind]?.[version];
    if (upgrade === undefined) return fail(`no upgrade from version ${version} of ${kind} records`);
    upgraded = upgrade(upgraded);
  }
  const parsed = HISTORY_SCHEMAS[kind].safeParse(upgraded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return fail(`${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return historyRecord(seq, kind, at, parsed.data);
}

/** Decodes a job's stored history, in order; the first record that fails throws `CorruptRecordError`. */
export function decodeHistory(jobId: string, rows: readonly HistoryRow[]): HistoryRecord[] {
  return rows.map((row) => decodeHistoryRecord(jobId, row));
}

/**
 * Decodes a job's history for showing it: a record that fails keeps its place, `seq`, kind and time, and its
 * `data` throws the `CorruptRecordError` when read — as the store does for a field it cannot read — so one bad
 * record neither hides the job nor passes for good data.
 */
export function decodeHistoryForView(jobId: string, rows: readonly HistoryRow[]): HistoryRecord[] {
  return rows.map((row) => {
    try {
      return decodeHistoryRecord(jobId, row);
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      const record = { seq: row.seq, kind: row.kind, at: row.at };
      Object.defineProperty(record, "data", { enumerable: true, get: () => { throw error; } });
      // Not a decoded record: every read of its data throws, which is the point.
      return record as HistoryRecord;
    }
  });
}
