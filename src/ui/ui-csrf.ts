/**
 * @module
 * CSRF protection of the UI's form POSTs: a synchronizer token bound to the browser. Each browser gets a random
 * id in an HttpOnly, SameSite=Strict cookie; each form carries `HMAC(key, id)`; a POST passes only with a cookie
 * whose HMAC equals the form's token — which a page on another site can neither read nor compute. The key is
 * random per UI process.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The form field that carries the token. */
export const CSRF_FIELD = "_csrf";
/** The cookie that carries the browser's id. */
export const BROWSER_COOKIE = "statek_ui_browser";

/** Makes and checks CSRF tokens. */
export class CsrfTokens {
  readonly #key = randomBytes(32);

  /** A new browser id for the cookie. */
  newBrowserId(): string {
    return randomBytes(18).toString("base64url");
  }

  /** The token forms of the browser with this id carry. */
  tokenFor(browserId: string): string {
    return createHmac("sha256", this.#key).update(browserId).digest("base64url");
  }

  /** True when `token` is this browser's. */
  verify(browserId: string | undefined, token: unknown): boolean {
    if (!browserId || typeof token !== "string") return false;
    const expected = Buffer.from(this.tokenFor(browserId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
