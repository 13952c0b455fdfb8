/**
 * @module
 * What the web UI may do to jobs: the operator actions of DESIGN.md §4, as an interface of their own so the UI
 * can be built and tested before every one of them exists on `Statek`. {@link uiActionsOf} reads them off a
 * `Statek` (or anything with the same method names); a method it lacks is shown as unavailable, never faked.
 */

/** One approval a job waits for (the shape of `statek.pendingApprovals()`). */
export interface PendingApproval {
  jobId: string;
  requestId: string;
  tool: string;
  args: unknown;
  summary?: string;
  requestedAt: Date | number;
}

/** Who approves or denies, and why. */
export interface ApprovalDecision {
  note?: string;
  /** Who decided: a token's name or `local`. */
  by?: string;
}

/** The operator actions, with the method names and shapes of DESIGN.md §4. Each may be missing. */
export interface UiActions {
  pushMessage?(id: string, message: string): Promise<unknown>;
  resolveFuture?(key: string, value?: unknown): Promise<boolean>;
  rejectFuture?(key: string, error: Error | string): Promise<boolean>;
  approve?(jobId: string, requestId: string, decision: ApprovalDecision): Promise<unknown>;
  deny?(jobId: string, requestId: string, decision: ApprovalDecision): Promise<unknown>;
  cancelJob?(id: string, reason?: string): Promise<unknown>;
  retryJob?(id: string): Promise<unknown>;
  pendingApprovals?(filter?: { jobId?: string }): Promise<PendingApproval[]>;
}

/** Every action name the UI knows, in the order pages offer them. */
export const UI_ACTION_NAMES = ["pushMessage", "resolveFuture", "rejectFuture", "approve", "deny", "cancelJob", "retryJob", "pendingApprovals"] as const;

/** An action name. */
export type UiActionName = (typeof UI_ACTION_NAMES)[number];

/**
 * The actions `target` has (a `Statek`, or a test's stand-in): each present method, bound to it. Feature
 * detection by `typeof … === "function"`, so a `Statek` from before approvals existed gives a UI without them.
 */
export function uiActionsOf(target: object): UiActions {
  const actions: Record<string, unknown> = {};
  for (const name of UI_ACTION_NAMES) {
    const method: unknown = Reflect.get(target, name);
    if (typeof method === "function") actions[name] = method.bind(target);
  }
  // Only a method's presence can be checked at run time; its shape is DESIGN.md §4's.
  return actions as UiActions;
}

/** Why an action cannot be offered, for the page and the API's error. */
export function unavailable(name: UiActionName): string {
  return `this STATEK has no statek.${name}() yet, so the UI cannot offer it`;
}
