/**
 * @module
 * What every route of the UI shares: the store, the actions, the open event streams, access and CSRF, and the
 * per-request variables the middleware sets (who asks, the browser's CSRF token).
 */
import type { Store } from "../store/store.ts";
import type { UiAccess } from "./ui-access.ts";
import type { UiActions } from "./ui-actions.ts";
import type { CsrfTokens } from "./ui-csrf.ts";

/** The UI's parts. */
export interface UiParts {
  store: Store;
  actions: UiActions;
  /** The event streams open now (`GET /api/events`), each by the function that ends it. */
  liveStreams: Set<() => void>;
  access: UiAccess;
  csrf: CsrfTokens;
}

/** Hono's environment of the UI's routes. */
export interface UiEnv {
  Variables: {
    /** Who asks: a token's name or `local`. */
    who: string;
    /** The CSRF token this browser's forms carry. */
    csrfToken: string;
    /** The browser's id (the CSRF cookie). */
    browserId: string;
    /** The session cookie's value, when signed in with a token. */
    session: string | undefined;
  };
}
