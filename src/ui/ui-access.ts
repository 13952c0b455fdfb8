/**
 * @module
 * Who may use the UI and who they are. On a loopback address without tokens every request is `local` (and
 * the `Host` header must name a loopback host, so a web page cannot reach the UI through DNS rebinding). With
 * tokens, a request proves one with `Authorization: Bearer <secret>` (scripts) or a session cookie made by
 * the login form (browsers), and is recorded under the token's name.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A token: its name (recorded as who did an action) and its secret. */
export interface UiToken {
  name: string;
  secret: string;
}

/** Host names that are this machine's loopback interface. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** The default token name of a `--token` given without `name:`. */
export const DEFAULT_TOKEN_NAME = "operator";

/** True for a host (as `--host` takes it) that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Parses `--token` / `STATEK_UI_TOKEN`: comma-separated `name:secret` entries (a bare `secret` is named
 * `operator`). Secrets must be at least 16 characters: a token guards every job in the store.
 */
export function parseTokens(text: string): UiToken[] {
  const tokens: UiToken[] = [];
  for (const entry of text.split(",").map((part) => part.trim()).filter(Boolean)) {
    const colon = entry.indexOf(":");
    const [name, secret] = colon === -1 ? [DEFAULT_TOKEN_NAME, entry] : [entry.slice(0, colon).trim(), entry.slice(colon + 1)];
    if (!/^[\w.@-]{1,64}$/.test(name)) throw new TypeError(`token name ${JSON.stringify(name)}: use letters, digits, _ . @ - (at most 64)`);
    if (secret.length < 16) throw new TypeError(`the token named ${name} is too short: a secret needs at least 16 characters`);
    if (tokens.some((token) => token.name === name)) throw new TypeError(`two tokens are named ${name}`);
    tokens.push({ name, secret });
  }
  if (tokens.length === 0) throw new TypeError("no token given (expected name:secret or a secret, several separated by commas)");
  return tokens;
}

/** The tokens, the browser sessions made from them, and the check of each request. */
export class UiAccess {
  readonly tokens: readonly UiToken[];
  readonly #digests: Array<{ name: string; digest: Buffer }>;
  /** Session id → token name. In memory: a restart logs browsers out, which is the safe direction. */
  readonly #sessions = new Map<string, string>();
  readonly #allowedHosts: ReadonlySet<string> | undefined;

  /**
   * @param tokens The tokens; none means an open UI, allowed only on loopback (the caller checks the address).
   * @param allowedHosts Without tokens, the host names the `Host` header may carry (loopback ones).
   */
  constructor(tokens: readonly UiToken[], allowedHosts?: Iterable<string>) {
    this.tokens = tokens;
    this.#digests = tokens.map((token) => ({ name: token.name, digest: digest(token.secret) }));
    this.#allowedHosts = tokens.length ? undefined : new Set([...LOOPBACK_HOSTS, ...(allowedHosts ?? [])]);
  }

  /** True when requests must prove a token. */
  get requiresToken(): boolean {
    return this.tokens.length > 0;
  }

  /** The token name a secret belongs to, or `undefined` (compared in constant time). */
  nameOf(secret: string): string | undefined {
    const candidate = digest(secret);
    return this.#digests.find((entry) => timingSafeEqual(entry.digest, candidate))?.name;
  }

  /** Starts a browser session for a token's name; the session id goes into an HttpOnly cookie. */
  openSession(name: string): string {
    const id = randomBytes(24).toString("base64url");
    this.#sessions.set(id, name);
    return id;
  }

  /** Ends a browser session. */
  closeSession(id: string): void {
    this.#sessions.delete(id);
  }

  /**
   * Who is asking: a token's name, `local` (open UI), or `undefined` (not allowed). `null` for a request whose
   * `Host` an open UI does not serve.
   */
  identify(request: { host: string | undefined; authorization: string | undefined; session: string | undefined }): string | undefined | null {
    if (!this.requiresToken) {
      const host = hostName(request.host ?? "");
      return this.#allowedHosts!.has(host) ? "local" : null;
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(request.authorization ?? "")?.[1]?.trim();
    if (bearer !== undefined) return this.nameOf(bearer);
    return request.session === undefined ? undefined : this.#sessions.get(request.session);
  }
}

/** The host name of a `Host` header (`[::1]:4870` → `[::1]`, `localhost:4870` → `localhost`). */
function hostName(header: string): string {
  const text = header.trim().toLowerCase();
  if (text.startsWith("[")) return text.slice(0, text.indexOf("]") + 1);
  const colon = text.lastIndexOf(":");
  return colon === -1 ? text : text.slice(0, colon);
}

function digest(secret: string): Buffer {
  return createHash("sha256").update(secret).digest();
}
