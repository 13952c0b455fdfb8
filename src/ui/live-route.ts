/**
 * @module
 * `GET /api/events`: the job events as server-sent events, for live pages and scripts. `?job=<id>` keeps one
 * job's. A reconnecting client sends `Last-Event-ID` (browsers do it by themselves) and gets what it missed from
 * the outbox first, then the live events, none twice; a new one starts from now (or after `?after=<id>`).
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { JobEventRow, Store } from "../store/store.ts";
import type { LiveFeed } from "./live-feed.ts";

/** How often an idle stream sends a comment, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000;
/** What a browser waits before reconnecting. */
const RETRY_MS = 1000;

/** Serves one event stream until the client goes away. */
export function serveEvents(context: Context, store: Store, feed: LiveFeed): Response {
  const jobId = context.req.query("job") || undefined;
  const resumeFrom = parseId(context.req.header("Last-Event-ID") ?? context.req.query("after"));
  return streamSSE(context, async (stream) => {
    let closed = false;
    let lastSent = resumeFrom ?? (await feed.cursor());
    const backlog: JobEventRow[] = [];
    let catchingUp = true;
    const send = async (event: JobEventRow) => {
      if (event.id <= lastSent || closed) return;
      lastSent = event.id;
      await stream.writeSSE({ id: String(event.id), event: "job", data: JSON.stringify({ id: event.id, jobId: event.jobId, kind: event.kind, at: event.at }) });
    };
    // Subscribe before reading the backlog, so nothing committed in between is missed; duplicates are dropped by id.
    const unsubscribe = feed.subscribe((event) => {
      if (jobId !== undefined && event.jobId !== jobId) return;
      if (catchingUp) backlog.push(event);
      else void send(event).catch(() => undefined);
    });
    const finished = new Promise<void>((resolve) => stream.onAbort(() => {
      closed = true;
      resolve();
    }));
    const heartbeat = setInterval(() => void stream.write(": ping\n\n").catch(() => undefined), HEARTBEAT_MS);
    try {
      await stream.writeSSE({ event: "ready", data: JSON.stringify({ after: lastSent }), retry: RETRY_MS });
      for (let after = lastSent; ;) {
        const missed = await store.readEvents({ afterId: after, limit: 500, ...(jobId === undefined ? {} : { jobId }) });
        for (const event of missed) await send(event);
        if (missed.length < 500) break;
        after = missed[missed.length - 1]!.id;
      }
      catchingUp = false;
      for (const event of backlog.splice(0)) await send(event);
      await finished;
    } finally {
      clearInterval(heartbeat);
      unsubscribe();
    }
  });
}

function parseId(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}
