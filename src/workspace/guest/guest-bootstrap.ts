/**
 * @module
 * The source text a new VM evaluates to install the guest runtime with its codec, handles and clock. The
 * text is an expression whose value is the runtime's private entries; the executor keeps that value for
 * itself, so agent code never sees it.
 */
import { codecSource } from "../codec/codec.ts";
import { RANDOM_BATCH, installHostClock } from "./guest-clock.ts";
import { GUEST_OPERATION_CODES } from "./guest-protocol.ts";
import { createGuestHandles } from "./guest-handles.ts";
import { installGuestRuntime } from "./guest-runtime.ts";
import { installGuestTimers } from "./guest-timers.ts";

let cached: Map<string, string> | undefined;

/**
 * Source of the guest bootstrap; `sendName` is the global through which the executor receives messages.
 * The global is deleted before any agent code runs, so agent code only reaches the host through the
 * runtime's proxies.
 */
export function guestBootstrapSource(sendName: string): string {
  cached ??= new Map();
  let source = cached.get(sendName);
  if (source === undefined) {
    source = `(function () {
  const send = globalThis[${JSON.stringify(sendName)}];
  delete globalThis[${JSON.stringify(sendName)}];
  return (${installGuestRuntime.toString()})(send, ${JSON.stringify(GUEST_OPERATION_CODES)}, ${codecSource()}, ${createGuestHandles.toString()}, ${installHostClock.toString()}, ${RANDOM_BATCH}, ${installGuestTimers.toString()});
})()`;
    cached.set(sendName, source);
  }
  return source;
}
