/**
 * @module
 * A local HTTP server on 127.0.0.1 that answers with scripted responses and records every request: the one
 * double the tests allow, standing in for a model provider's network. The responses are written in the
 * provider's real wire format by the tests that use it (`*-stream.ts` beside this file build the event
 * streams of each provider).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One item of a server-sent event stream. */
export type StreamItem =
  /** An event: `event: <event>` (when given) and `data: <JSON of data>`, or `data` as it is when it is a string. */
  | { data: unknown; event?: string }
  /** Text written to the stream as it is (comments, keep-alive blank space, malformed events). */
  | { raw: string }
  /** Pause the stream until the promise settles: lets a test act while a reply is half sent. */
  | { wait: Promise<unknown> };

/** One scripted HTTP answer. */
export interface ScriptedResponse {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, or a string sent as it is (for malformed bodies). */
  body?: unknown;
  /** A server-sent event stream (`text/event-stream`) instead of a body. */
  events?: readonly StreamItem[];
  /** Keep the connection open after the events: a stream that stalls. */
  stallAfterEvents?: boolean;
  /** Never answer (until the server closes): a provider that hangs. */
  hang?: boolean;
}

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: any;
}

/** A scripted answer, or a function that answers from the request (a server that validates what it gets). */
export type Responder = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse);

/** A running loopback server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a server that answers the n-th request with `responses[n]` (a 500 when the script runs out). */
export async function startLoopbackServer(responses: readonly Responder[]): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedRequest = { method: request.method ?? "", path: request.url ?? "", headers: request.headers, body: text ? JSON.parse(text) : undefined };
      requests.push(recorded);
      const responder = responses[requests.length - 1] ?? { status: 500, body: { error: { message: "the test script has no response left" } } };
      const scripted = typeof responder === "function" ? responder(recorded) : responder;
      if (scripted.hang) return;
      if (scripted.events) {
        response.writeHead(scripted.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...scripted.headers });
        void writeEvents(scripted.events, (chunk) => response.write(chunk)).then(() => {
          if (!scripted.stallAfterEvents) response.end();
        });
        return;
      }
      const body = typeof scripted.body === "string" ? scripted.body : JSON.stringify(scripted.body ?? {});
      response.writeHead(scripted.status ?? 200, { "content-type": "application/json", ...scripted.headers });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function writeEvents(items: readonly StreamItem[], write: (chunk: string) => void): Promise<void> {
  for (const item of items) {
    if ("wait" in item) {
      await item.wait.catch(() => {});
    } else if ("raw" in item) {
      write(item.raw);
    } else {
      const data = typeof item.data === "string" ? item.data : JSON.stringify(item.data);
      write(`${item.event ? `event: ${item.event}\n` : ""}data: ${data}\n\n`);
    }
  }
}
