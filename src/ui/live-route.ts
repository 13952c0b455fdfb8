/**
 * @module
 * `GET /api/events`: the job events as server-sent events, for live pages and scripts. `?job=<id>` keeps one
 * job's. A reconnecting client sends `Last-Event-ID` (browsers do it by themselves) and gets what it missed from
 * the outbox first, then the live events, none twice; a new one starts from now (or after `?after=<id>`).
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { JobEventRow, Store } from "../store/store.ts";

/** How often an idle stream sends a comment, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000;
/** What a browser waits before reconnecting. */
const RETRY_MS = 1000;

/**
 * Serves one event stream until the client goes away (or the UI closes: `liveStreams` holds the function that
 * ends it). The events come from the store's one outbox reader, the backlog first, none twice.
 */
export function serveEvents(context: Context, store: Store, liveStreams: Set<() => void>): Response {
  const jobId = context.req.query("job") || undefined;
  const resumeFrom = parseId(context.req.header("Last-Event-ID") ?? context.req.query("after"));
  return streamSSE(context, async (stream) => {
    let closed = false;
    let end!: () => void;
    const finished = new Promise<void>((resolve) => (end = resolve));
    stream.onAbort(() => {
      closed = true;
      end();
    });
    // Events are written in the order they come, after the `ready` event.
    let writing: Promise<unknown> = Promise.resolve();
    const early: JobEventRow[] = [];
    let ready = false;
    const send = (event: JobEventRow) => {
      writing = writing.then(() => closed ? undefined : stream.writeSSE({
        id: String(event.id), event: "job", data: JSON.stringify({ id: event.id, jobId: event.jobId, kind: event.kind, at: event.at }),
      })).catch(() => undefined);
    };
    const follow = store.followEvents(
      {
        onEvents: (events) => {
          if (ready) events.forEach(send);
          else early.push(...events);
        },
        // A busy or closing store: the reader reads again at the next wake-up; the page keeps what it shows.
        onError: () => undefined,
      },
      { ...(resumeFrom === undefined ? {} : { afterId: resumeFrom }), ...(jobId === undefined ? {} : { jobId }) },
    );
    const stop = () => {
      closed = true;
      follow.stop();
      end();
    };
    liveStreams.add(stop);
    const heartbeat = setInterval(() => void stream.write(": ping\n\n").catch(() => undefined), HEARTBEAT_MS);
    try {
      const after = await follow.started;
      await stream.writeSSE({ event: "ready", data: JSON.stringify({ after }), retry: RETRY_MS });
      ready = true;
      early.splice(0).forEach(send);
      await finished;
    } finally {
      clearInterval(heartbeat);
      follow.stop();
      liveStreams.delete(stop);
    }
  });
}

function parseId(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}
