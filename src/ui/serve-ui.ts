/**
 * @module
 * Starts the operator's web UI (`statek ui`, DESIGN.md §11) on a host and port: loopback by default; any other
 * address only with a token, refused otherwise. Resolves once it is listening.
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Store } from "../store/store.ts";
import { LiveFeed } from "./live-feed.ts";
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
  /** How often the outbox is read as a safety net (the store's wake-up hints make reads prompt). @default 5000 */
  pollMs?: number;
}

/** A running UI. */
export interface RunningUi {
  /** `http://host:port`. */
  url: string;
  port: number;
  /** The shared outbox reader (listeners: one per open live page). */
  feed: LiveFeed;
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
  const feed = new LiveFeed(options.store, options.pollMs === undefined ? {} : { pollMs: options.pollMs });
  const access = new UiAccess(tokens, isLoopbackHost(host) ? [host] : []);
  const app = createUiApp({ store: options.store, actions: options.actions, feed, access, csrf: new CsrfTokens() });
  const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_UI_PORT }, (info) => resolve({ server, address: info }));
    server.once("error", reject);
  });
  const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    feed,
    close: async () => {
      feed.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
    },
  };
}
