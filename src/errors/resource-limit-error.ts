import { StatekError } from "./statek-error.ts";

/**
 * Agent code went past one of its workspace's resource limits on the host side of the boundary (host calls
 * per cell, bytes moved across the boundary, pending host calls). Agent code sees
 * `ResourceLimitError: <message>`; the message names the limit's option so an operator can raise it.
 */
export class ResourceLimitError extends StatekError {
  /** The limit's option name, e.g. `maxHostCalls`. */
  readonly limit: string;
  /** The configured bound. */
  readonly bound: number;

  constructor({ limit, bound, message }: { limit: string; bound: number; message: string }) {
    super({ name: "ResourceLimitError", message: `${message} (limit ${limit} = ${bound.toLocaleString("en-US")})` });
    this.limit = limit;
    this.bound = bound;
  }
}
