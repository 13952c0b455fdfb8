/**
 * @module
 * The workspace's global set, the same in every executor:
 *
 * - {@link pruneEngineGlobals} runs first in the bootstrap and keeps only the engine globals on
 *   {@link ENGINE_GLOBALS}: the ECMAScript built-ins both engines have. It removes the nondeterministic ones
 *   (`WeakRef` and `FinalizationRegistry` expose the garbage collector's timing, `performance` the real
 *   clock) and those only one engine has (`Intl`, `WebAssembly`, `Atomics`, `DisposableStack`,
 *   `InternalError`, …), so code sees the same realm under `quickjs` and `trusted`.
 * - {@link installRealmGlobals} adds the globals the guest writes itself: `performance.now()` through the
 *   host (one recorded crossing per call, like `Date.now()`), `queueMicrotask`, `DOMException` where the
 *   engine lacks it, then the parts written in their own files: text encoding (`guest-text.ts`), `URL` and
 *   `URLSearchParams` (`guest-url-api.ts`), `structuredClone` (`guest-clone.ts`). Those are thin globals over
 *   *engines* (encoders, the URL parser, the clone algorithm) that a VM compiles the first time it uses them:
 *   most cells never do, and compiling them in every VM would double the cost of making one.
 *
 * Both run *inside* the sandbox from their source text, so they are self-contained.
 */

/** The engine globals a workspace keeps (with what the guest runtime and the realm parts add). */
export const ENGINE_GLOBALS = [
  "globalThis", "Infinity", "NaN", "undefined",
  "eval", "isFinite", "isNaN", "parseFloat", "parseInt", "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape",
  "Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Date", "RegExp", "Promise", "Proxy", "Iterator",
  "Error", "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
  "Map", "Set", "WeakMap", "WeakSet", "ArrayBuffer", "SharedArrayBuffer", "DataView",
  "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
  "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
  "JSON", "Math", "Reflect",
  // Kept where the engine has it; the guest supplies it where it does not.
  "DOMException",
] as const;

/** Deletes every global of the fresh realm that is not in `keep`. Runs inside the sandbox, first. */
export function pruneEngineGlobals(G: any, keep: readonly string[]): void {
  const kept = new Set(keep);
  for (const name of Object.getOwnPropertyNames(G)) {
    if (!kept.has(name)) delete G[name];
  }
}

/** What the realm parts need from the guest runtime. */
export interface RealmLink {
  send(op: number, ...args: string[]): string;
  ops: Record<string, number>;
  /** Turns a host reply into a value (or throws it). */
  answer(reply: unknown): unknown;
  /** How a host object (handle) or tombstone is named in messages, or `undefined` for a guest value. */
  hostValueName(value: object): string | undefined;
  /** Ends the running cell with `error`, as an exception in a promise job would. */
  failCell(error: unknown): void;
}

/** The realm parts written in their own files (each self-contained). */
export interface RealmParts {
  /** The function a source of {@link RealmParts.engines} defines, compiled now with the original built-ins. */
  load(source: string): Function;
  /** Sources of the engines' factories: `createTextEngine`, `createUrlHosts`, `createUrlEngine`, `createCloneEngine`, `createDomException`. */
  engines: { text: string; urlHosts: string; url: string; clone: string; domException: string };
  installTextGlobals: Function;
  installUrlGlobals: Function;
}

/** Installs the guest-written globals. Runs inside the sandbox; see the module comment. */
export function installRealmGlobals(G: any, link: RealmLink, parts: RealmParts): void {
  const defineProperty = Object.defineProperty;
  // Globals get the attributes built-ins have: writable, configurable, not enumerable.
  const global = (name: string, value: unknown) => defineProperty(G, name, { value, writable: true, enumerable: false, configurable: true });
  const method = (target: object, name: string, value: Function) => defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });

  const MONOTONIC = link.ops.monotonic!;
  const performance = {};
  method(performance, "now", function now() {
    return link.answer(link.send(MONOTONIC));
  });
  defineProperty(performance, Symbol.toStringTag, { value: "Performance", configurable: true });
  global("performance", performance);

  // The guest's own, in every executor: QuickJS-NG has one, but an exception in its callback escapes the job
  // queue and leaves the rest of the queue for the next cell. Here it ends the cell with that error, as an
  // uncaught exception does, and the queue goes on.
  const settled = Promise.resolve();
  global("queueMicrotask", function queueMicrotask(callback: () => void) {
    if (typeof callback !== "function") throw new TypeError("queueMicrotask: the callback is not a function");
    void settled.then(() => {
      try {
        callback();
      } catch (error) {
        link.failCell(error);
      }
    });
  });

  if (typeof G.DOMException !== "function") global("DOMException", parts.load(parts.engines.domException)());

  // Engines are made on first use; the classes that reach them exist (and are frozen) from the start.
  const once = <T>(make: () => T) => {
    let made: T | undefined;
    return () => (made === undefined ? (made = make()) : made);
  };
  const DOMExceptionClass = G.DOMException;
  const typedArrays = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
    "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"].map((name) => G[name]);
  const text = once(() => parts.load(parts.engines.text)(DOMExceptionClass));
  const url = once(() => parts.load(parts.engines.url)(parts.load(parts.engines.urlHosts)(text())));
  const clone = once(() => parts.load(parts.engines.clone)(DOMExceptionClass, link.hostValueName, typedArrays));
  parts.installTextGlobals(G, text);
  parts.installUrlGlobals(G, url);
  global("structuredClone", function structuredClone(value: unknown, options?: unknown) {
    if (arguments.length === 0) throw new TypeError("structuredClone: 1 argument required, but only 0 present");
    return clone()(value, options);
  });
}

/**
 * The `DOMException` of the web platform, as QuickJS-NG has it (name and message on the prototype, a legacy
 * `code` for the names that have one, the legacy constants), for an engine without one (V8 in `node:vm`).
 * Runs inside the sandbox from its source text, compiled only where it is needed; see the module comment.
 */
export function createDomException(): Function {
  const defineProperty = Object.defineProperty;
  const LEGACY = [
    ["INDEX_SIZE_ERR", "IndexSizeError"], ["DOMSTRING_SIZE_ERR", "DOMStringSizeError"], ["HIERARCHY_REQUEST_ERR", "HierarchyRequestError"],
    ["WRONG_DOCUMENT_ERR", "WrongDocumentError"], ["INVALID_CHARACTER_ERR", "InvalidCharacterError"], ["NO_DATA_ALLOWED_ERR", "NoDataAllowedError"],
    ["NO_MODIFICATION_ALLOWED_ERR", "NoModificationAllowedError"], ["NOT_FOUND_ERR", "NotFoundError"], ["NOT_SUPPORTED_ERR", "NotSupportedError"],
    ["INUSE_ATTRIBUTE_ERR", "InUseAttributeError"], ["INVALID_STATE_ERR", "InvalidStateError"], ["SYNTAX_ERR", "SyntaxError"],
    ["INVALID_MODIFICATION_ERR", "InvalidModificationError"], ["NAMESPACE_ERR", "NamespaceError"], ["INVALID_ACCESS_ERR", "InvalidAccessError"],
    ["VALIDATION_ERR", "ValidationError"], ["TYPE_MISMATCH_ERR", "TypeMismatchError"], ["SECURITY_ERR", "SecurityError"],
    ["NETWORK_ERR", "NetworkError"], ["ABORT_ERR", "AbortError"], ["URL_MISMATCH_ERR", "URLMismatchError"],
    ["QUOTA_EXCEEDED_ERR", "QuotaExceededError"], ["TIMEOUT_ERR", "TimeoutError"], ["INVALID_NODE_TYPE_ERR", "InvalidNodeTypeError"],
    ["DATA_CLONE_ERR", "DataCloneError"],
  ];
  const state = new WeakMap<object, { message: string; name: string }>();
  const read = (self: object) => {
    const entry = state.get(self);
    if (!entry) throw new TypeError("DOMException object expected");
    return entry;
  };
  const DOMException: any = function DOMException(this: unknown, message?: unknown, name?: unknown) {
    if (new.target === undefined) throw new TypeError("must be called with new");
    // An Error made for the subclass: it has the engine's stack, and `instanceof Error` holds.
    const self = Reflect.construct(Error, [], new.target);
    state.set(self, { message: message === undefined ? "" : String(message), name: name === undefined ? "Error" : String(name) });
    return self;
  };
  const prototype = Object.create(Error.prototype);
  const getter = (key: string, get: (self: object) => unknown) =>
    defineProperty(prototype, key, { get: { [key](this: object) { return get(this); } }[key], enumerable: false, configurable: true });
  getter("name", (self) => read(self).name);
  getter("message", (self) => read(self).message);
  getter("code", (self) => {
    const name = read(self).name;
    for (let index = 0; index < LEGACY.length; index++) if (LEGACY[index]![1] === name) return index + 1;
    return 0;
  });
  defineProperty(prototype, "constructor", { value: DOMException, writable: true, enumerable: false, configurable: true });
  defineProperty(DOMException, "prototype", { value: prototype, writable: false, enumerable: false, configurable: false });
  defineProperty(DOMException, "length", { value: 0, configurable: true });
  LEGACY.forEach(([constant], index) => {
    const code = { value: index + 1, writable: false, enumerable: true, configurable: false };
    defineProperty(DOMException, constant!, code);
    defineProperty(prototype, constant!, code);
  });
  return DOMException;
}
