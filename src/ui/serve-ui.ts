/**
 * @module
 * Starts the operator's web UI (`statek ui`) on a host and port: loopback by default; any other
 * address only with a token, refused otherwise. Resolves once it is listening.
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Store } from "../store/store.ts";
import { UiAccess, isLoopbackHost, type UiToken } from "./ui-access.ts";
import type { UiActions } from "./ui-actions.ts";
import { createUiApp } from "./ui-app.ts";
import { CsrfTokens } from "./ui-csrf.ts";

/** The default port. */
export const DEFAULT_UI_PORT = 4870;
/** The default host: this machine only. */
export const DEFAULT_UI_HOST = "127.0.0.1";

/** What {@link startUi} takes. */
export interface UiOptions {
  store: Store;
  /** The actions the UI offers (`uiActionsOf(statek)`). */
  actions: UiActions;
  /** @default 127.0.0.1 */
  host?: string;
  /** 0 picks a free port. @default 4870 */
  port?: number;
  /** Tokens; required for a host that is not loopback. */
  tokens?: readonly UiToken[];
}

/** A running UI. */
export interface RunningUi {
  /** `http://host:port`. */
  url: string;
  port: number;
  /** Event streams open now (one per live page; each follows the store's one outbox reader). */
  readonly liveStreams: number;
  /** Stops listening and ends open event streams. */
  close(): Promise<void>;
}

/** Starts the UI. A non-loopback host without tokens is a `TypeError` saying so. */
export async function startUi(options: UiOptions): Promise<RunningUi> {
  const host = options.host ?? DEFAULT_UI_HOST;
  const tokens = options.tokens ?? [];
  if (!isLoopbackHost(host) && tokens.length === 0) {
    throw new TypeError(`refusing to serve on ${host} without a token: anyone who can reach it could act on every job. Give --token NAME:SECRET (or STATEK_UI_TOKEN), or serve on 127.0.0.1`);
  }
  if ("pollMs" in options) {
    throw new TypeError("startUi: pollMs is not a UI option: the store's wake-up subscription says when another process committed " +
      "(SQLite: createSqliteStore({ path, pollIntervalMs }), 25 ms by default; PostgreSQL: LISTEN/NOTIFY)");
  }
  const liveStreams = new Set<() => void>();
  const access = new UiAccess(tokens, isLoopbackHost(host) ? [host] : []);
  const app = createUiApp({ store: options.store, actions: options.actions, liveStreams, access, csrf: new CsrfTokens() });
  const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_UI_PORT }, (info) => resolve({ server, address: info }));
    server.once("error", reject);
  });
  const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    get liveStreams() {
      return liveStreams.size;
    },
    close: async () => {
      for (const end of [...liveStreams]) end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
    },
  };
}
