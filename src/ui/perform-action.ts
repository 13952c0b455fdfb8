/**
 * @module
 * One operator action, as both the forms and the JSON API ask for it: the input checked (every text from a
 * request is hostile), the action done through {@link UiActions}, then recorded in the job's history with who
 * did it (`record-action.ts`), and live pages woken.
 */
import { formatError } from "../tools/call-tool.ts";
import type { OperatorActionRecord } from "../jobs/history/history.ts";
import type { FutureKind, Store } from "../store/store.ts";
import { recordOperatorAction } from "./record-action.ts";
import type { UiActionName, UiActions } from "./ui-actions.ts";
import { UiInputError } from "./ui-input-error.ts";

/** How each kind of wait other than an application's future is settled, for refusals. */
const OWN_DOOR: Readonly<Record<Exclude<FutureKind, "external" | "checked">, string>> = {
  approval: "an approval request: it is decided by approving or denying it",
  message: "a wait for a message: it is answered by pushing one",
  timer: "a timer: it ends when its time comes",
  child: "a wait for a child job: it ends when the child ends",
};

/** Texts longer than this are refused (a message, a note, a value). */
export const MAX_TEXT = 100_000;

/** An action and its input, as a request gives it (fields unchecked). */
export type ActionInput =
  | { action: "push-message"; message: unknown }
  | { action: "resolve-future"; key: unknown; value: unknown }
  | { action: "reject-future"; key: unknown; error: unknown }
  | { action: "approve" | "deny"; requestId: unknown; note?: unknown }
  | { action: "cancel"; reason?: unknown }
  | { action: "retry" }
  | { action: "fork"; turn: unknown; model?: unknown; message?: unknown };

/** Where the UI is, for doing and recording actions. */
export interface ActionContext {
  store: Store;
  actions: UiActions;
  /** Who asks (a token's name or `local`). */
  by: string;
  /** Where the request came from, recorded with it. @default "web UI" */
  via?: string;
}

/** What an action did: a sentence saying so, and the job it leads to (the job itself, or the fork it made). */
export interface ActionResult {
  done: string;
  jobId: string;
}

/**
 * Does the action on job `jobId`. It is recorded on the job it leads to: a fork is recorded on the new job, so the
 * original stays as it was.
 */
export async function performAction(context: ActionContext, jobId: string, input: ActionInput): Promise<ActionResult> {
  const { store, actions } = context;
  const job = await store.getJob(jobId);
  if (!job) throw new UiInputError({ message: `no job ${jobId}`, status: 404 });
  const record: OperatorActionRecord = { action: input.action, by: context.by, via: context.via ?? "web UI" };
  let done: string;
  let leadsTo = jobId;
  switch (input.action) {
    case "push-message": {
      const message = text("message", input.message, { required: true });
      await call(actions.pushMessage, "pushMessage", (push) => push(jobId, message));
      done = "Message pushed.";
      break;
    }
    case "resolve-future":
    case "reject-future": {
      const key = text("key", input.key, { required: true });
      const future = await store.getFuture(key);
      if (!future || future.jobId !== jobId) throw new UiInputError({ message: `job ${jobId} has no future ${JSON.stringify(key)}`, status: 404 });
      // Only an application's future (checked or not) is settled here; every other wait has its own door (the store refuses it too).
      if (future.kind !== "external" && future.kind !== "checked") {
        throw new UiInputError({ message: `future ${JSON.stringify(key)} is ${OWN_DOOR[future.kind]}, not by resolving or rejecting it`, status: 409 });
      }
      if (future.state !== "waiting") throw new UiInputError({ message: `future ${JSON.stringify(key)} is ${future.state} already`, status: 409 });
      record.target = key;
      const settled = input.action === "resolve-future"
        ? await call(actions.resolveFuture, "resolveFuture", (resolve) => resolve(key, input.value))
        : await call(actions.rejectFuture, "rejectFuture", (reject) => reject(key, text("error", input.error, { required: true })));
      if (!settled) throw new UiInputError({ message: `future ${JSON.stringify(key)} was settled by someone else first`, status: 409 });
      done = input.action === "resolve-future" ? `Future ${key} resolved.` : `Future ${key} rejected.`;
      break;
    }
    case "approve":
    case "deny": {
      const requestId = text("requestId", input.requestId, { required: true });
      const note = text("note", input.note);
      record.target = requestId;
      if (note) record.note = note;
      // A form shown earlier may name a request decided since: the first decision stands, and the refusal
      // (ApprovalDecidedError) says who made it and when.
      const decision = { ...(note ? { note } : {}), by: context.by };
      if (input.action === "approve") await call(actions.approve, "approve", (approve) => approve(jobId, requestId, decision));
      else await call(actions.deny, "deny", (deny) => deny(jobId, requestId, decision));
      done = input.action === "approve" ? "Approved." : "Denied.";
      break;
    }
    case "cancel": {
      const note = text("reason", input.reason);
      if (note) record.note = note;
      const reason = `${note || "cancelled"} (by ${context.by}, ${record.via})`;
      await call(actions.cancelJob, "cancelJob", (cancel) => cancel(jobId, reason));
      done = "Job cancelled.";
      break;
    }
    case "retry":
      await call(actions.retryJob, "retryJob", (retry) => retry(jobId));
      done = "Job retried: it resumes from its last committed state.";
      break;
    case "fork": {
      const atTurn = turnNumber(input.turn);
      const model = text("model", input.model).trim();
      const message = text("message", input.message);
      const options = { atTurn, ...(model ? { model } : {}), ...(message.trim() ? { message } : {}) };
      ({ id: leadsTo } = await call(actions.forkJob, "forkJob", (fork) => fork(jobId, options)));
      record.target = `job ${jobId}, turn ${atTurn}`;
      done = `Forked job ${jobId} at the end of turn ${atTurn}: the new job is ${leadsTo}.`;
      break;
    }
    default:
      throw new UiInputError({ message: `unknown action ${JSON.stringify((input as { action: unknown }).action)}` });
  }
  try {
    await recordOperatorAction(store, leadsTo, record);
  } catch (error) {
    // The action happened; saying otherwise would invite doing it twice.
    done += ` It could not be recorded in the job's history: ${formatError(error)}`;
  }
  return { done, jobId: leadsTo };
}

/** A turn number: an integer of 0 or more, as a number (JSON) or decimal text (a form). */
function turnNumber(value: unknown): number {
  const turn = typeof value === "string" && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof turn !== "number" || !Number.isSafeInteger(turn) || turn < 0) throw new UiInputError({ message: "turn must be a turn number (0 or more)" });
  return turn;
}

/** Calls an action; its failure becomes a refusal the operator reads (409). */
async function call<Method, Result>(method: Method, name: UiActionName, invoke: (method: Method) => Promise<Result>): Promise<Result> {
  try {
    return await invoke(method);
  } catch (error) {
    if (error instanceof UiInputError) throw error;
    throw new UiInputError({ message: `${name} refused: ${formatError(error)}`, status: 409 });
  }
}

/** A text field: a string of at most {@link MAX_TEXT} characters (empty allowed unless required). */
function text(field: string, value: unknown, options: { required?: boolean } = {}): string {
  if (value === undefined || value === null) value = "";
  if (typeof value !== "string") throw new UiInputError({ message: `${field} must be a string` });
  if (value.length > MAX_TEXT) throw new UiInputError({ message: `${field} is longer than ${MAX_TEXT.toLocaleString("en-US")} characters` });
  if (options.required && value.trim() === "") throw new UiInputError({ message: `${field} must not be empty` });
  return value;
}
