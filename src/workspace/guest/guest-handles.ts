/**
 * @module
 * Guest-side handles: the proxies that stand for host objects inside the sandbox. Every property read,
 * write and call on one is a message to the host broker; nothing of the host object itself is inside.
 *
 * {@link createGuestHandles} runs *inside* the sandbox from its source text (see `guest-bootstrap.ts`), so it
 * is self-contained: everything it uses arrives as a parameter.
 */

/** What the handle factory needs from the guest runtime. */
export interface GuestHandleLink {
  send(op: number, ...args: string[]): string;
  /** Operation codes by name (see `guest-protocol.ts`). */
  ops: Record<string, number>;
  /** Turns a reply into a value (or throws it). */
  answer(reply: string): unknown;
  /** As `answer`, for a call that may come back approved: `again(key)` makes it again with the approval's key. */
  answerCall(reply: string, again: (key: string) => string): unknown;
  /** Encodes an argument list (see `guest-protocol.ts`). */
  encodeArgs(args: unknown[]): string;
  /** Encodes one value for transfer. */
  encode(value: unknown): string;
  /**
   * Told of what a tool call returned (`name`: the tool's), before agent code gets it: a promise is marked, so
   * that using it without `await` gets a notice. Also called after each call's message, to send notices queued
   * while its arguments were encoded.
   */
  toolResult(value: unknown, name: string): void;
  afterCall(): void;
}

/** Creates the handle factory of one guest runtime. Runs inside the sandbox; see the module comment. */
export function createGuestHandles(link: GuestHandleLink): { make(ref: any): any; refOf(value: object): any } {
  const { send, answer, answerCall, encodeArgs, encode, toolResult, afterCall } = link;
  const CALL_APPROVED = link.ops.callApproved!;
  const GET = link.ops.get!;
  const SET = link.ops.set!;
  const HAS = link.ops.has!;
  const KEYS = link.ops.keys!;
  const CALL = link.ops.call!;
  const CALL_NUMBERS = link.ops.callNumbers!;
  const plainNumber = (value: unknown) => typeof value === "number" && value - value === 0 && !(value === 0 && 1 / value < 0);
  // One to three finite numbers (ids, counts, amounts) go as they are; anything else as an encoded list.
  const call = (id: string, prop: string, args: unknown[]) => {
    const count = args.length;
    if (count === 0) return send(CALL, id, prop);
    // Indexing, not destructuring: destructuring runs the iterator protocol, costly in the interpreter.
    const a = args[0] as string;
    const b = args[1] as string;
    const c = args[2] as string;
    if (count === 1 && plainNumber(a)) return send(CALL_NUMBERS, id, prop, a);
    if (count === 2 && plainNumber(a) && plainNumber(b)) return send(CALL_NUMBERS, id, prop, a, b);
    if (count === 3 && plainNumber(a) && plainNumber(b) && plainNumber(c)) return send(CALL_NUMBERS, id, prop, a, b, c);
    return send(CALL, id, prop, encodeArgs(args));
  };
  const handles = new Map<number, any>();
  const refs = new WeakMap<object, any>();

  function make(ref: any): any {
    const existing = handles.get(ref.id);
    if (existing) return existing;
    const id = String(ref.id);
    const methods = new Map<string, Function>();
    const refuse = (what: string) => {
      throw new TypeError("cannot " + what + " a host object (" + (ref.c || "object") + ")");
    };
    const target = ref.f ? function () {} : {};
    const toolName = typeof ref.k === "string" && ref.k.startsWith("tool:") ? ref.k.slice(5) : undefined;
    const proxy: any = new Proxy(target, {
      get(_t, prop) {
        // Symbol members (Symbol.toPrimitive, Symbol.iterator, …) and `then` never reach the host: a handle is
        // not a thenable, and symbols have no name the broker could check.
        if (typeof prop === "symbol" || prop === "then") return undefined;
        const cached = methods.get(prop);
        if (cached) return cached;
        const reply = send(GET, id, prop);
        if (reply === "m") {
          // Frozen: the same function is handed to every cell, so a property set on it would outlive them all.
          const method = Object.freeze({ [prop]: (...args: unknown[]) => answer(call(id, prop, args)) }[prop]!);
          methods.set(prop, method);
          return method;
        }
        return answer(reply);
      },
      set(_t, prop, value) {
        if (typeof prop === "symbol") return refuse("set a symbol property on");
        answer(send(SET, id, prop, encode(value)));
        return true;
      },
      has(_t, prop) {
        if (typeof prop === "symbol") return false;
        return answer(send(HAS, id, prop)) === true;
      },
      ownKeys() {
        return answer(send(KEYS, id)) as string[];
      },
      getOwnPropertyDescriptor(_t, prop) {
        if (typeof prop === "symbol" || answer(send(HAS, id, prop)) !== true) return undefined;
        return { value: proxy[prop], writable: true, enumerable: true, configurable: true };
      },
      apply(_t, _this, args) {
        // A tool that needs approval answers later; approved, the same call is made again with the approval's key.
        const reply = call(id, "", args);
        afterCall();
        const result = answerCall(reply, (key) => send(CALL_APPROVED, id, key, encodeArgs(args)));
        if (toolName !== undefined) toolResult(result, toolName);
        return result;
      },
      construct: () => refuse("construct"),
      deleteProperty: () => refuse("delete a property of"),
      defineProperty: () => refuse("define a property on"),
      getPrototypeOf: () => null,
      setPrototypeOf: () => refuse("change the prototype of"),
      preventExtensions: () => refuse("freeze"),
    });
    handles.set(ref.id, proxy);
    refs.set(proxy, ref);
    return proxy;
  }

  return { make, refOf: (value: object) => refs.get(value) };
}
