/**
 * @module
 * The source text a new VM evaluates to install the guest runtime with its codec.
 */
import { createCodec } from "../codec/codec.ts";
import { installGuestRuntime } from "./guest-runtime.ts";

/**
 * Source of the guest bootstrap; `sendName` is the global through which the executor receives messages.
 * The global is removed again, so agent code only reaches the host through the runtime's proxies.
 */
export function guestBootstrapSource(sendName: string): string {
  return `(function () {
  const send = globalThis[${JSON.stringify(sendName)}];
  delete globalThis[${JSON.stringify(sendName)}];
  (${installGuestRuntime.toString()})(send, ${createCodec.toString()});
})();`;
}
