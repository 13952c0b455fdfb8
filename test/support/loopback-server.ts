/**
 * @module
 * A local HTTP server on 127.0.0.1 that answers with scripted responses and records every request: the one
 * double the tests allow, standing in for a model provider's network. The responses are written in the
 * provider's real wire format by the tests that use it.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted HTTP answer. */
export interface ScriptedResponse {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, or a string sent as it is (for malformed bodies). */
  body?: unknown;
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

/** A running loopback server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a server that answers the n-th request with `responses[n]` (a 500 when the script runs out). */
export async function startLoopbackServer(responses: readonly ScriptedResponse[]): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body: text ? JSON.parse(text) : undefined });
      const scripted = responses[requests.length - 1] ?? { status: 500, body: { error: { message: "the test script has no response left" } } };
      if (scripted.hang) return;
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
