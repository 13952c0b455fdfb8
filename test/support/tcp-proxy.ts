/**
 * A TCP proxy on 127.0.0.1 in front of a server, which a test can cut (every connection through it is
 * destroyed, new ones are refused) and restore: a network partition between a client and its database,
 * without touching the server or anyone else's connections to it.
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
  /** Stops the proxy. */
  close(): Promise<void>;
}

/** Starts a proxy to `host:port`. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
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
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
