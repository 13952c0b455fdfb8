/**
 * @module
 * What an operator may do to a job in its current state, written once: `pushMessage` refuses what this
 * refuses, and the UI offers only what this allows.
 */
import type { JobRow, JobStatus } from "../../store/store.ts";
import { isFinal } from "../../store/store-rules.ts";
import { chatStyleOf } from "../../agents/chat-styles/chat-style.ts";
import { chatStyleRules } from "../../agents/chat-styles/chat-styles.ts";

/** The operator actions a job's state allows. */
export interface AllowedActions {
  /** A user message is taken: any job that has not finished, and a `DONE` dialog job (it starts again). */
  pushMessage: boolean;
  /** Only a job that has not finished can be cancelled. */
  cancel: boolean;
  /** Only a `FAILED` job can be retried. */
  retry: boolean;
}

/** Whether a job of `status` takes a pushed message; `dialog` says whether its chat style is a dialog. */
export function takesMessages(status: JobStatus, dialog: boolean): boolean {
  return !isFinal(status) || (status === "DONE" && dialog);
}

/** The actions job `row` allows now. */
export function allowedActions(row: Pick<JobRow, "status" | "metadata">): AllowedActions {
  const dialog = chatStyleRules(chatStyleOf(row.metadata)).dialog;
  return { pushMessage: takesMessages(row.status, dialog), cancel: !isFinal(row.status), retry: row.status === "FAILED" };
}
