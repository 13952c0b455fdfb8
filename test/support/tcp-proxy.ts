/**
 * A TCP proxy on 127.0.0.1 in front of a server, which a test can cut (every connection through it is
 * destroyed, new ones are refused) and restore: a network partition between a client and its database,
 * without touching the server or anyone else's connections to it. It can also freeze a connection after a given
 * request, the way a client process stopped with SIGSTOP looks to the server: the socket stays open, nothing more
 * comes through in either direction.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

/** A running proxy. */
export interface TcpProxy {
  /** The port clients connect to. */
  port: number;
  /** Destroys every open connection and refuses new ones until {@link TcpProxy.restore}. */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
  /**
   * The next client data containing `text` is passed on, then its connection carries nothing more either way
   * (the socket stays open). Resolves once that has happened.
   */
  freezeAfter(text: string): Promise<void>;
  /**
   * The next client data containing `text` is passed on and the server is told the client is done (it reads all
   * of it, a `COMMIT` included); the client's connection is cut before any answer reaches it — a write whose
   * acknowledgement was lost. Resolves once that has happened.
   */
  cutAfter(text: string): Promise<void>;
  /** Stops the proxy. */
  close(): Promise<void>;
}

/** Starts a proxy to `host:port`. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  let freeze: { text: string; frozen: () => void; cut: boolean } | undefined;
  const server: Server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    let frozen = false;
    let ended = false;
    client.on("data", (chunk: Buffer) => {
      if (frozen) return;
      upstream.write(chunk);
      if (freeze && chunk.includes(freeze.text)) {
        frozen = true;
        if (freeze.cut) {
          ended = true;
          upstream.end();
          client.destroy();
        }
        freeze.frozen();
        freeze = undefined;
      }
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!frozen) client.write(chunk);
    });
    // A cut client leaves the server to read what it was sent; its end of the connection is already closed.
    client.on("close", () => (ended ? undefined : upstream.destroy()));
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("proxy has no port");
  return {
    port: address.port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    freezeAfter(text) {
      return new Promise((resolve) => (freeze = { text, frozen: resolve, cut: false }));
    },
    cutAfter(text) {
      return new Promise((resolve) => (freeze = { text, frozen: resolve, cut: true }));
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
