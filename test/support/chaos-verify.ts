/**
 * What a chaos run left, checked from outside (test/support/chaos-harness.ts): every job's end and exit value,
 * its history against the application's own rows (every call recorded exactly once; an effect missing only where
 * its record says the call was in doubt; no effect of a non-idempotent call twice), the approvals and messages
 * its history holds, and the model calls per turn. Returns the figures and the violations found.
 */
import { DatabaseSync } from "node:sqlite";
import type { JobView, Statek } from "../../src/index.ts";
import { expectedExit } from "../fixtures/chaos-agents.ts";

/** One fault the harness caused, for attributing extra model calls. */
export interface FaultMark {
  kind: "kill" | "stop" | "restart";
  at: number;
  /** When the fault ended (a stopped worker resumed, the database accepted connections again). */
  until: number;
  pid?: number;
  /** When a stopped worker was resumed. */
  resumedAt?: number;
}

/** What the history and the application's rows say, with what is wrong. */
export interface ChaosFindings {
  parents: number;
  children: number;
  /** Jobs not `DONE`, with their status and error. */
  stuck: string[];
  /** Parents whose exit value is not the script's (a cell that went off script). */
  offScript: string[];
  /** Tool calls (by the application's rows or by what the job asked) without exactly one history record. */
  unrecorded: number;
  /** Tool calls recorded more than once. */
  recordedTwice: number;
  /** Effects of non-idempotent calls made twice. */
  duplicateEffects: number;
  /** Calls the code was told were in doubt (`InDoubtError` records). */
  inDoubt: number;
  /** Idempotent calls made again (same key). */
  idempotentAgain: number;
  /** Model turns (distinct job and turn) and calls. */
  turns: number;
  modelCalls: number;
  /** Extra calls (a turn paid more than once), by what preceded them. */
  extraCalls: { afterKill: number; afterStop: number; afterRestart: number; other: number };
  /**
   * Effects of non-idempotent calls a stopped worker made after it was resumed, past its lease, and of those the
   * ones whose call the history does not say was in doubt (the taker of the job must have seen it in flight).
   */
  afterResume: number;
  afterResumeNotInDoubt: number;
  /** Approval records not made by the client's approve(), message records not as pushed. */
  forgedTrail: number;
  violations: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Checks every job of the run (see the module comment). `statek` reads the store; `appPath` is the application's file. */
export async function verifyChaos(statek: Statek, appPath: string, faults: readonly FaultMark[]): Promise<ChaosFindings> {
  const violations: string[] = [];
  const found: ChaosFindings = {
    parents: 0, children: 0, stuck: [], offScript: [], unrecorded: 0, recordedTwice: 0, duplicateEffects: 0, inDoubt: 0, idempotentAgain: 0,
    turns: 0, modelCalls: 0, extraCalls: { afterKill: 0, afterStop: 0, afterRestart: 0, other: 0 }, afterResume: 0, afterResumeNotInDoubt: 0,
    forgedTrail: 0, violations,
  };
  const app = new DatabaseSync(appPath, { readOnly: true });
  // The calls the history says were in doubt, as `<job>:note:<i>` and `<job>:transfer`.
  const doubted = new Set<string>();
  try {
    const rows = await statek.store.listJobs({ limit: 1_000_000 });
    for (const row of rows) {
      const view = (await statek.getJob(row.id))!;
      const tag = String(view.params.tag);
      if (view.role === "chaos") found.parents++;
      else found.children++;
      if (view.status !== "DONE") {
        // What it waits for, for the report: its wake time, lease, waiting futures and last records.
        const futures = (await statek.store.listFutures(view.id)).map((future) => `${future.kind} ${future.key} ${future.state}`);
        const lease = await statek.store.getLease(view.id);
        const last = view.history.slice(-4).map((record) => record.kind === "status" ? `status ${record.data.status}` : record.kind);
        found.stuck.push(`${tag} ${view.id} ${view.status}${view.error ? `: ${view.error}` : ""} (wakeAt ${row.wakeAt}, lease ${lease ? `${lease.owner}#${lease.epoch} until ${lease.until}` : "none"}, futures [${futures.join(", ")}], last [${last.join(", ")}])`);
        continue;
      }
      if (view.role === "chaos") checkParent(view, tag, app, found, doubted);
      else checkChild(view, tag, app, found, doubted);
    }
    countModelCalls(app, faults, found);
    countAfterResume(app, faults, found, doubted);
  } finally {
    app.close();
  }
  if (found.stuck.length) violations.push(`${found.stuck.length} jobs not DONE: ${found.stuck.slice(0, 5).join("; ")}`);
  if (found.offScript.length) violations.push(`${found.offScript.length} jobs off script: ${found.offScript.slice(0, 5).join("; ")}`);
  if (found.unrecorded) violations.push(`${found.unrecorded} tool calls without their one record`);
  if (found.recordedTwice) violations.push(`${found.recordedTwice} tool calls recorded twice`);
  if (found.duplicateEffects) violations.push(`${found.duplicateEffects} effects of non-idempotent calls made twice`);
  if (found.forgedTrail) violations.push(`${found.forgedTrail} approvals or messages in a history not as the client made them`);
  if (found.extraCalls.other) violations.push(`${found.extraCalls.other} model calls paid twice with no crash, stop or restart before them`);
  return found;
}

/** The records of one tool call (by name and arguments as recorded). */
function callRecords(view: JobView, name: string, args: string): Array<{ result?: string; error?: string }> {
  return view.history.flatMap((record) => (record.kind === "tool-call" && record.data.name === name && record.data.args === args ? [record.data] : []));
}

/** Checks a non-idempotent call against its effect rows: one record; no row only when the record says in doubt. */
function checkEffect(found: ChaosFindings, where: string, records: ReadonlyArray<{ result?: string; error?: string }>, rows: number): boolean {
  const doubted = records.length === 1 && records[0]!.error?.startsWith("InDoubtError") === true;
  if (doubted) found.inDoubt++;
  if (records.length === 0) {
    found.unrecorded++;
    found.violations.push(`${where}: no record (${rows} effect rows)`);
  } else if (records.length > 1) {
    found.recordedTwice++;
    found.violations.push(`${where}: ${records.length} records`);
  }
  if (rows > 1) {
    found.duplicateEffects++;
    found.violations.push(`${where}: ${rows} effect rows`);
  } else if (rows === 0 && !doubted) {
    found.violations.push(`${where}: no effect, and its record does not say it was in doubt`);
  }
  return doubted;
}

function checkParent(view: JobView, tag: string, app: DatabaseSync, found: ChaosFindings, doubted: Set<string>): void {
  const n = Number(tag.slice(1));
  const expected = expectedExit(tag);
  const exit = isRecord(view.exitStatus) ? view.exitStatus : {};
  const doubts: Record<string, boolean> = {};
  for (const i of [1, 2]) {
    const payments = callRecords(view, "pay", `{i:${i}}`);
    if (payments.length !== 1 || payments[0]!.result !== String(i)) {
      found.unrecorded += payments.length === 0 ? 1 : 0;
      found.recordedTwice += payments.length > 1 ? 1 : 0;
      found.violations.push(`${tag} pay(${i}): ${payments.length} records ${JSON.stringify(payments)}`);
    }
    const paid = app.prepare("SELECT COUNT(*) AS keys, COALESCE(SUM(calls), 0) AS calls FROM payments WHERE job = ? AND i = ?").get(view.id, i) as { keys: number; calls: number };
    if (paid.keys !== 1) found.violations.push(`${tag} pay(${i}): ${paid.keys} payment keys`);
    found.idempotentAgain += Math.max(0, paid.calls - 1);
    const notes = (app.prepare("SELECT COUNT(*) AS n FROM notes WHERE job = ? AND i = ?").get(view.id, i) as { n: number }).n;
    doubts[`note${i}`] = checkEffect(found, `${tag} note(${i})`, callRecords(view, "note", `{i:${i}}`), notes);
    if (doubts[`note${i}`]) doubted.add(`${view.id}:note:${i}`);
  }
  const transfers = (app.prepare("SELECT COUNT(*) AS n FROM transfers WHERE job = ?").get(view.id) as { n: number }).n;
  // A call that needs approval is recorded twice: asking (its result says it awaits approval), then running.
  const transferCalls = callRecords(view, "transfer", `{n:${n}}`);
  const asked = transferCalls.filter((record) => record.result?.startsWith("awaiting approval (") === true);
  if (asked.length !== 1) found.violations.push(`${tag} transfer: asked for approval ${asked.length} times`);
  doubts.transfer = checkEffect(found, `${tag} transfer`, transferCalls.filter((record) => !asked.includes(record)), transfers);
  if (doubts.transfer) doubted.add(`${view.id}:transfer`);
  const research = callRecords(view, "research", `{tag:${JSON.stringify(tag)}}`);
  if (research.length !== 1) found.violations.push(`${tag} research: ${research.length} records`);
  const approvals = view.history.flatMap((record) => (record.kind === "approval" ? [record.data] : []));
  const forgedApprovals = approvals.filter((approval) => approval.by !== "chaos-client" || !approval.approved).length;
  found.forgedTrail += forgedApprovals;
  if (approvals.length !== 1) found.violations.push(`${tag}: ${approvals.length} approval records`);
  const ended = view.history.filter((record) => record.kind === "child-ended").length;
  if (ended !== 1) found.violations.push(`${tag}: ${ended} child-ended records`);
  const messages = view.history.flatMap((record) => (record.kind === "user-message" ? [record.data.text] : []));
  if (JSON.stringify(messages) !== JSON.stringify([`m1:${tag}`, `m2:${tag}`])) {
    found.forgedTrail++;
    found.violations.push(`${tag}: messages ${JSON.stringify(messages)}`);
  }
  const want = {
    ...expected,
    notes: [doubts.note1 ? "doubt" : 10, doubts.note2 ? "doubt" : 20],
    receipt: doubts.transfer ? "doubt" : expected.receipt,
  };
  if (JSON.stringify(exit) !== JSON.stringify(want)) found.offScript.push(`${tag}: exit ${JSON.stringify(view.exitStatus)}, expected ${JSON.stringify(want)}`);
}

function checkChild(view: JobView, tag: string, app: DatabaseSync, found: ChaosFindings, doubted: Set<string>): void {
  const notes = (app.prepare("SELECT COUNT(*) AS n FROM notes WHERE job = ? AND i = 100").get(view.id) as { n: number }).n;
  if (checkEffect(found, `${tag} note(100)`, callRecords(view, "note", "{i:100}"), notes)) doubted.add(`${view.id}:note:100`);
  if (view.exitStatus !== `found ${tag}`) found.offScript.push(`${tag}: exit ${JSON.stringify(view.exitStatus)}`);
}

/** Model calls per turn; each extra one is put down to the fault that came before it, if any. */
function countModelCalls(app: DatabaseSync, faults: readonly FaultMark[], found: ChaosFindings): void {
  const calls = app.prepare("SELECT tag, turn, pid, at FROM model_calls ORDER BY tag, turn, at").all() as Array<{ tag: string; turn: number; pid: number; at: number }>;
  found.modelCalls = calls.length;
  const seen = new Map<string, { pid: number; at: number }>();
  for (const call of calls) {
    const key = `${call.tag}:${call.turn}`;
    const previous = seen.get(key);
    seen.set(key, call);
    if (!previous) continue;
    const between = (fault: FaultMark) => fault.at <= call.at && fault.until >= previous.at;
    if (faults.some((fault) => fault.kind === "kill" && fault.pid === previous.pid && between(fault))) found.extraCalls.afterKill++;
    else if (faults.some((fault) => fault.kind === "stop" && fault.pid === previous.pid && between(fault))) found.extraCalls.afterStop++;
    else if (faults.some((fault) => fault.kind === "restart" && between(fault))) found.extraCalls.afterRestart++;
    else {
      found.extraCalls.other++;
      found.violations.push(`${key}: model asked again by ${call.pid} at ${call.at} after ${previous.pid} at ${previous.at}`);
    }
  }
  found.turns = seen.size;
}

/**
 * Effects a stopped worker made after it was resumed. A call in flight when it stopped may still land (a tool
 * cannot be taken back); the job's new holder must then have shown it in doubt, unless the lease was never taken.
 * Duplicates and calls recorded twice, which a worker writing on past its lease would cause, are checked above.
 */
function countAfterResume(app: DatabaseSync, faults: readonly FaultMark[], found: ChaosFindings, doubted: ReadonlySet<string>): void {
  for (const fault of faults) {
    if (fault.kind !== "stop" || fault.resumedAt === undefined) continue;
    const notes = app.prepare("SELECT job, i FROM notes WHERE pid = ? AND at >= ?").all(fault.pid!, fault.resumedAt) as Array<{ job: string; i: number }>;
    const transfers = app.prepare("SELECT job FROM transfers WHERE pid = ? AND at >= ?").all(fault.pid!, fault.resumedAt) as Array<{ job: string }>;
    const keys = [...notes.map((row) => `${row.job}:note:${row.i}`), ...transfers.map((row) => `${row.job}:transfer`)];
    found.afterResume += keys.length;
    found.afterResumeNotInDoubt += keys.filter((key) => !doubted.has(key)).length;
  }
}
