/**
 * @module
 * What the web UI may do to jobs: `Statek`'s operator actions, named once for the pages, the API and the
 * recorded operator actions.
 */
import type { PendingApproval } from "../jobs/operate/approvals.ts";
import type { Statek } from "../jobs/statek.ts";

export type { PendingApproval };

/** Every action name the UI knows, in the order pages offer them. */
export const UI_ACTION_NAMES = ["pushMessage", "resolveFuture", "rejectFuture", "approve", "deny", "cancelJob", "retryJob", "forkJob", "pendingApprovals", "agents", "resetAgent"] as const;

/** An action name. */
export type UiActionName = (typeof UI_ACTION_NAMES)[number];

/** The operator actions: `Statek`'s own methods of those names. */
export type UiActions = Pick<Statek, UiActionName>;

/** The actions of `statek`, bound to it. */
export function uiActionsOf(statek: Statek): UiActions {
  return {
    pushMessage: statek.pushMessage.bind(statek),
    resolveFuture: statek.resolveFuture.bind(statek),
    rejectFuture: statek.rejectFuture.bind(statek),
    approve: statek.approve.bind(statek),
    deny: statek.deny.bind(statek),
    cancelJob: statek.cancelJob.bind(statek),
    retryJob: statek.retryJob.bind(statek),
    forkJob: statek.forkJob.bind(statek),
    pendingApprovals: statek.pendingApprovals.bind(statek),
    agents: statek.agents.bind(statek),
    resetAgent: statek.resetAgent.bind(statek),
  };
}
