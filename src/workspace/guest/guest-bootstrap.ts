/**
 * @module
 * The source text a new VM evaluates to install the guest runtime with its codec, handles, clock and realm.
 * The text is an expression whose value is the runtime's private entries; the executor keeps that value for
 * itself, so agent code never sees it. In order, it:
 *
 * 1. takes the executor's message function off the global object;
 * 2. binds the names of the built-ins as constants of its own scope, so the runtime, the codec and the realm
 *    parts keep the originals whatever a cell later assigns to `globalThis.JSON` or `globalThis.Map`;
 * 3. prunes the engine's globals to the workspace's set (`guest-realm.ts`);
 * 4. installs the runtime, which installs the clock and the realm's own globals (`performance`, `URL`,
 *    `structuredClone`, …; their engines are compiled on first use from the sources in {@link ENGINES}) and
 *    the workspace variables (`guest-variables.ts`, with `guest-variable-uses.ts` and `guest-collect-scope.ts`);
 * 5. locks the realm down (`guest-lockdown.ts`): every intrinsic is frozen before any agent code runs.
 */
import { codecSource } from "../codec/codec.ts";
import { createCloneEngine } from "./guest-clone.ts";
import { REGROUP_FLOOR, createCollectScope } from "./guest-collect-scope.ts";
import { RANDOM_BATCH, installHostClock } from "./guest-clock.ts";
import { GUEST_OPERATION_CODES } from "./guest-protocol.ts";
import { createGuestHandles } from "./guest-handles.ts";
import { lockdownRealm } from "./guest-lockdown.ts";
import { ENGINE_GLOBALS, createDomException, installRealmGlobals, pruneEngineGlobals } from "./guest-realm.ts";
import { installGuestRuntime } from "./guest-runtime.ts";
import { installGuestTimers } from "./guest-timers.ts";
import { installGuestWaits } from "./guest-waits.ts";
import { createTextEngine, installTextGlobals } from "./guest-text.ts";
import { createUrlEngine } from "./guest-url.ts";
import { installUrlGlobals } from "./guest-url-api.ts";
import { createUrlHosts } from "./guest-url-hosts.ts";
import { createVariableUses } from "./guest-variable-uses.ts";
import { createWorkspaceVariables } from "./guest-variables.ts";

/** Globals of the guest runtime itself: not intrinsics, so the lockdown leaves them as they are. */
export const RUNTIME_GLOBALS = ["console", "print", "exit", "__statek"] as const;

/** Built-ins the bootstrap's scope binds as constants (values and names that cannot be rebound stay out). */
const BOUND_BUILTINS = ENGINE_GLOBALS.filter(
  (name) => !["globalThis", "Infinity", "NaN", "undefined", "eval", "DOMException", "queueMicrotask"].includes(name),
);

/**
 * Sources of the engines a VM compiles on first use (see `guest-realm.ts`): each defines a function whose
 * parameters bind the original built-ins, as the bootstrap's own scope does, and which returns the factory.
 */
const ENGINES = {
  text: engineSource(createTextEngine),
  urlHosts: engineSource(createUrlHosts),
  url: engineSource(createUrlEngine),
  clone: engineSource(createCloneEngine),
  domException: engineSource(createDomException),
};

/** The source that {@link ENGINES} holds for `factory`, without comment lines and indentation. */
function engineSource(factory: Function): string {
  const lines: string[] = [];
  let inComment = false;
  for (const raw of factory.toString().split("\n")) {
    const line = raw.trim();
    if (inComment || line.startsWith("/*")) inComment = !line.endsWith("*/");
    else if (line !== "" && !line.startsWith("//")) lines.push(line);
  }
  const text = lines.join("\n");
  // Trimming lines is only safe without template literals and line continuations; the engines use neither.
  if (text.includes("`") || /\\$/m.test(text)) throw new Error(`${factory.name}: cannot trim a source with template literals or line continuations`);
  return `(function (${BOUND_BUILTINS.join(", ")}) { return (${text}); })`;
}

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
    const parts = `{ load, engines: ${JSON.stringify(ENGINES)}, installTextGlobals: ${installTextGlobals}, installUrlGlobals: ${installUrlGlobals} }`;
    source = `(function () {
  const send = globalThis[${JSON.stringify(sendName)}];
  delete globalThis[${JSON.stringify(sendName)}];
  const { ${BOUND_BUILTINS.join(", ")} } = globalThis;
  const evaluate = globalThis.eval;
  const load = (source) => evaluate(source)(${BOUND_BUILTINS.join(", ")});
  (${pruneEngineGlobals})(globalThis, ${JSON.stringify(ENGINE_GLOBALS)});
  const installRealm = (G, link) => (${installRealmGlobals})(G, link, ${parts});
  const entries = (${installGuestRuntime})(send, ${JSON.stringify(GUEST_OPERATION_CODES)}, ${codecSource()}, ${createGuestHandles}, ${installHostClock}, ${RANDOM_BATCH}, installRealm, ${installGuestTimers}, ${installGuestWaits}, { create: ${createWorkspaceVariables}, uses: ${createVariableUses}, scope: ${createCollectScope}, regroupFloor: ${REGROUP_FLOOR} });
  (${lockdownRealm})(globalThis, ${JSON.stringify(RUNTIME_GLOBALS)});
  return entries;
})()`;
    cached.set(sendName, source);
  }
  return source;
}
