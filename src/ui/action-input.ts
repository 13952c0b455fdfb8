/**
 * @module
 * Reads an action from a request: the path names it (`/jobs/:id/<path>` for forms, `/api/jobs/:id/<path>` for
 * scripts), the body gives its fields (form fields as text, or JSON). Forms resolve a future with text, or with
 * JSON when `format=json`; the API takes any JSON value.
 */
import type { ActionInput } from "./perform-action.ts";
import { UiInputError } from "./ui-input-error.ts";
import { errorMessage } from "../errors/error-text.ts";

/** The action paths. */
export const ACTION_PATHS = ["message", "future/resolve", "future/reject", "approval", "cancel", "retry", "fork"] as const;

/** An action path. */
export type ActionPath = (typeof ACTION_PATHS)[number];

/** The fixed notice shown after each action (links cannot make the page say anything else). */
export const NOTICES: Readonly<Record<string, string>> = {
  "push-message": "Message pushed.",
  "resolve-future": "Future resolved.",
  "reject-future": "Future rejected.",
  approve: "Approved.",
  deny: "Denied.",
  cancel: "Job cancelled.",
  retry: "Job retried: it resumes from its last committed state.",
  fork: "This job is a fork: it starts by asking its model (a worker runs it).",
};

/** The action input for `path` from the request's fields. */
export function actionInput(path: ActionPath, fields: Record<string, unknown>, from: "form" | "json"): ActionInput {
  switch (path) {
    case "message":
      return { action: "push-message", message: fields["message"] };
    case "future/resolve":
      return { action: "resolve-future", key: fields["key"], value: from === "json" ? fields["value"] ?? null : formValue(fields) };
    case "future/reject":
      return { action: "reject-future", key: fields["key"], error: fields["error"] };
    case "approval": {
      const decision = fields["decision"];
      if (decision !== "approve" && decision !== "deny") throw new UiInputError({ message: 'decision must be "approve" or "deny"' });
      return { action: decision, requestId: fields["requestId"], note: fields["note"] };
    }
    case "cancel":
      return { action: "cancel", reason: fields["reason"] };
    case "retry":
      return { action: "retry" };
    case "fork":
      return { action: "fork", turn: fields["turn"], model: fields["model"], message: fields["message"] };
  }
}

function formValue(fields: Record<string, unknown>): unknown {
  const value = fields["value"] ?? "";
  if (fields["format"] !== "json") return value;
  if (typeof value !== "string") throw new UiInputError({ message: "value must be text" });
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new UiInputError({ message: `value is not JSON (${errorMessage(error)}); choose "text" to send it as a string` });
  }
}
