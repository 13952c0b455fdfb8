/**
 * @module
 * The guest runtime: the code every workspace VM runs before the first cell. It gives agent code `console`,
 * `print` and `exit`, turns handle references into proxies (`guest-handles.ts`), takes the clock and random
 * numbers from the host (`guest-clock.ts`), installs the realm's own globals (`installRealm`, see
 * `guest-realm.ts`), restores and collects workspace variables with the codec (`guest-variables.ts`: the
 * collect encodes only what the cell could have changed), and reports the end of each cell. Its own functions
 * are frozen. The bootstrap locks the realm down once it returns (`guest-lockdown.ts`).
 *
 * {@link installGuestRuntime} is evaluated *inside* the sandbox from its source text, so it must be
 * self-contained (no imports, no outer variables). Its only link to the host is `send(op, ...strings)` (`op`
 * an operation code from `ops`), which returns a reply in the format of `guest-protocol.ts`.
 *
 * Two surfaces come out of it. The global `__statek` holds the helpers compiled cells call (`run`, `echo`,
 * `def`, `declare`, `checkExit`); agent code can reach them, so none of them is privileged, and `run` only
 * starts a cell the host has armed. The *private entries* (`begin`, `provide`, `restore`, `collect`,
 * `settle`) are returned to the executor and never stored where agent code can find them.
 */

/** Installs the guest runtime; returns its private entries. Runs inside the sandbox; see the module comment. */
export function installGuestRuntime(
  send: (op: number, ...args: string[]) => string,
  ops: Record<string, number>,
  createCodec: Function,
  createGuestHandles: Function,
  installHostClock: Function,
  randomBatch: number,
  installRealm: Function,
  installGuestTimers: Function,
  installGuestWaits: Function,
  variablesParts: { create: Function; uses: Function; scope: Function; regroupFloor: number },
): Record<string, Function> {
  const G: any = globalThis;
  const DONE = ops.done!;
  const PRINT = ops.print!;
  const REPR = ops.repr!;
  const EXIT_OP = ops.exit!;
  const RESOLVE = ops.resolve!;
  // Agent code may replace these globals; the runtime keeps the originals.
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const MAX_MESSAGE = 10_000;
  const definitions = new WeakSet<Function>();
  // Classes with `#private` members: their instances cannot be rebuilt from data (the brand is lost), so they
  // persist as tombstones. The mark travels with the stored source as a leading comment.
  const privateClasses = new WeakSet<Function>();
  const PRIVATE_MARK = "/*#private*/";
  // The built-in prototypes end the walk: their constructors are never private classes (the collect asks this of
  // every object it encodes, and a plain object or array is most of them).
  const objectPrototype = Object.prototype;
  const arrayPrototype = Array.prototype;
  const privateClassOf = (value: object) => {
    for (let proto = Object.getPrototypeOf(value); proto && proto !== objectPrototype && proto !== arrayPrototype; proto = Object.getPrototypeOf(proto)) {
      const cls = Object.prototype.hasOwnProperty.call(proto, "constructor") ? proto.constructor : undefined;
      if (cls && privateClasses.has(cls)) return cls;
    }
    return undefined;
  };
  // What each tombstone stands for, so storing it again keeps its reason (or the handle key to retry).
  const tombstones = new WeakMap<object, { why: string; k?: string }>();
  // `again`: a tool call that may come back approved (`a<key>`) is made again with the approval's key.
  const pending = new Map<number, { resolve: Function; reject: Function; again?: (key: string) => string }>();
  // Make, persist and restore the handles of child jobs (`c<json>` replies); installed with the waits below.
  let childHandle: ((info: any) => unknown) | undefined;
  let taskKeyOf: ((value: object) => string | undefined) | undefined;
  let fromTaskKey: ((key: unknown) => unknown) | undefined;
  const EXIT = { exit: true };
  // Set by `exit()`: every `catch` of the cell re-throws (the compiler calls `checkExit` there).
  let exiting = false;
  // Set by the host's `begin`: the next `__statek.run` starts the cell; any other call is refused.
  let armed = false;
  // Ends the running cell with an error (a realm part's promise job that threw); unset between cells.
  let failRunning: ((error: unknown) => void) | undefined;
  const indirectEval = G.eval;

  const OUT_OF_MEMORY = { name: "InternalError", message: "out of memory" };
  const UNDESCRIBABLE = { name: "Error", message: "the cell threw a value that could not be described" };
  // Made now, while there is memory: the end of a cell that ran out of it must not need any.
  const OUT_OF_MEMORY_TEXT = stringify(OUT_OF_MEMORY);
  const UNDESCRIBABLE_TEXT = stringify(UNDESCRIBABLE);
  const clip = (text: string) => (text.length > MAX_MESSAGE ? text.slice(0, MAX_MESSAGE) + "…" : text);
  // Host errors arrive as a name and a message; a built-in name gets its built-in class (`instanceof` holds).
  const BUILTIN_ERRORS = ["TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError"];
  const makeError = (info: any) => {
    const name = info && info.name ? String(info.name) : "Error";
    const message = info && info.message !== undefined ? String(info.message) : String(info);
    const error = BUILTIN_ERRORS.includes(name) ? new G[name](message) : new Error(message);
    error.name = name;
    return error;
  };

  // The host's answer to one message, as a guest value (or a thrown error, or a pending promise).
  const answer = (reply: string | number | boolean | null | undefined): unknown => {
    // A transport may deliver `undefined`, numbers, booleans and `null` as themselves (no string to read).
    if (typeof reply !== "string") return reply;
    if (reply === "") return undefined;
    switch (reply.charCodeAt(0)) {
      case 115 /* s */: return reply.slice(1);
      case 110 /* n */: return +reply.slice(1);
      case 98 /* b */: return reply.charCodeAt(1) === 49;
      case 122 /* z */: return null;
      case 118 /* v */: return codec.decode(reply.slice(1));
      case 101 /* e */: throw makeError(parse(reply.slice(1)));
      case 112 /* p */: {
        const id = +reply.slice(1);
        return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
      }
      case 99 /* c */:
        if (childHandle) return childHandle(parse(reply.slice(1)));
    }
    throw makeError({ name: "InternalError", message: "unreadable host reply" });
  };
  // A tool call's answer: as `answer`, but a pending result that comes back approved makes the call again.
  const answerCall = (reply: string | number | boolean | null | undefined, again: (key: string) => string): unknown => {
    if (typeof reply !== "string" || reply.charCodeAt(0) !== 112 /* p */) return answer(reply);
    const id = +reply.slice(1);
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject, again }));
  };
  // Argument lists of strings, finite numbers, booleans and null (nearly every call) are written as a JSON
  // array directly: cheaper for the interpreter than any general encoder.
  const encodeArgs = (args: unknown[]) => {
    const count = args.length;
    if (count === 0) return "";
    let text = "[";
    for (let i = 0; i < count; i++) {
      const value: any = args[i];
      const type = typeof value;
      let part;
      if (type === "number") {
        if (value - value !== 0 || (value === 0 && 1 / value < 0)) return codec.encode(args, "transfer");
        part = "" + value;
      } else if (type === "string") part = stringify(value);
      else if (type === "boolean") part = value ? "true" : "false";
      else if (value === null) part = "null";
      else return codec.encode(args, "transfer");
      text += i === 0 ? part : "," + part;
    }
    return text + "]";
  };
  const encode = (value: unknown) => codec.encode(value, "transfer");
  // Promises async tools returned, by the call that made them (`findEmptySlot(…)`): one used without `await`
  // (printed, passed on, kept in a variable) gets a notice saying so, instead of a bare `[a Promise]`.
  const toolPromises = new WeakMap<object, string>();
  const noticed = new WeakSet<object>();
  let notices: string[] = [];
  const flushNotices = () => {
    if (!notices.length) return;
    const queued = notices;
    notices = [];
    for (let i = 0; i < queued.length; i++) send(PRINT, "notice", encodeArgs([queued[i]]));
  };
  const handles = createGuestHandles({
    send, ops, answer, answerCall, encodeArgs, encode,
    toolResult(value: unknown, name: string) {
      if (value instanceof Promise) toolPromises.set(value, name + "(…)");
    },
    afterCall: flushNotices,
  });

  // One handler serves every tombstone (a restored workspace may hold thousands): each trap finds its
  // tombstone's message by the proxy's target.
  const deadMessages = new WeakMap<object, string>();
  const failDead = (target: object) => {
    throw new ReferenceError(deadMessages.get(target));
  };
  const deadHandler: ProxyHandler<any> = freeze({
    get: (target: object, prop: string | symbol) => (prop === "then" || typeof prop === "symbol" ? undefined : failDead(target)),
    set: failDead, apply: failDead, construct: failDead, has: failDead, ownKeys: failDead, deleteProperty: failDead,
    defineProperty: failDead, getOwnPropertyDescriptor: failDead,
  });
  const tombstone = (why: string, path: string, key?: string) => {
    // A plain function target, so `new` on a tombstone reaches the construct trap too.
    const target = function () {};
    deadMessages.set(target, path + " was not persisted: " + why);
    const proxy = new Proxy(target, deadHandler);
    tombstones.set(proxy, key === undefined ? { why } : { why, k: key });
    return proxy;
  };

  const codec: any = createCodec({
    handleOf(value: object, mode: string) {
      const call = toolPromises.get(value);
      if (call !== undefined) {
        // Sent once the message being encoded has gone (a send now would interleave with it).
        if (mode === "transfer") {
          if (!noticed.has(value)) {
            noticed.add(value);
            notices.push(call + " returned a promise that was used without await; write await " + call + " to use its value");
          }
          return undefined;
        }
        return { why: "the promise of " + call + ", never awaited (write await " + call + " to keep its value)" };
      }
      const dead = tombstones.get(value);
      if (dead) return dead.k !== undefined && mode === "persist" ? { k: dead.k } : { why: dead.why };
      // A sub-task's handle persists as its key (crossing to the host now, it is copied as its id and role).
      const task = mode === "persist" && taskKeyOf ? taskKeyOf(value) : undefined;
      if (task) return { k: task };
      const branded = mode === "persist" && typeof value === "object" ? privateClassOf(value) : undefined;
      if (branded) {
        const own = Object.getPrototypeOf(value).constructor;
        return { why: "an instance of " + ((own && own.name) || branded.name) + ", whose #private members cannot be kept" };
      }
      const ref = handles.refOf(value);
      if (!ref) return undefined;
      if (mode === "transfer") return { id: ref.id };
      return ref.k ? { k: ref.k } : { why: ref.why || "a host object that cannot be restored" };
    },
    fromHandle(ref: any, path: string) {
      if (ref.id !== undefined) return handles.make(ref);
      const task = fromTaskKey ? fromTaskKey(ref.k) : undefined;
      if (task) return task;
      let value;
      try {
        value = answer(send(RESOLVE, String(ref.k), path));
      } catch (error: any) {
        return tombstone(String(error && error.message), path, ref.k);
      }
      return value;
    },
    definitionOf(fn: Function) {
      if (!definitions.has(fn)) return undefined;
      return (privateClasses.has(fn) ? PRIVATE_MARK : "") + Function.prototype.toString.call(fn);
    },
    fromDefinition(source: string, name: string) {
      const value = indirectEval("(" + source + "\n)");
      if (source.startsWith(PRIVATE_MARK)) privateClasses.add(value);
      // An arrow function re-evaluated alone loses the name it got from its declaration.
      if (typeof value === "function" && name && value.name !== name) defineProperty(value, "name", { value: name });
      definitions.add(value);
      return value;
    },
    classOf(value: object) {
      const proto = Object.getPrototypeOf(value);
      const cls = proto && Object.prototype.hasOwnProperty.call(proto, "constructor") ? proto.constructor : undefined;
      return cls && definitions.has(cls) && cls.prototype === proto ? cls : undefined;
    },
    tombstone,
    parse,
  });

  // What a thrown value says, read defensively: agent code may throw anything, including objects whose
  // `name` or `message` getters throw or never end.
  const describeThrown = (error: any): { name: string; message: string } => {
    try {
      if (error instanceof Error || (error && typeof error === "object" && "message" in error)) {
        return { name: clip(String(error.name || "Error")), message: clip(String(error.message)) };
      }
      if (typeof error === "string") return { name: "Error", message: "uncaught " + clip(stringify(error)) };
      return { name: "Error", message: "uncaught " + clip(String(answer(send(REPR, encode(error))))) };
    } catch {
      // Out of memory, describing the error needs memory too: recognise it without allocating.
      try {
        if (error && error.message === "out of memory") return OUT_OF_MEMORY;
      } catch {
        // Fall through.
      }
      return UNDESCRIBABLE;
    }
  };
  const emit = (kind: string, args: unknown[]) => {
    answer(send(PRINT, kind, encodeArgs(args)));
    flushNotices();
  };
  const hidden = (name: string, value: unknown) =>
    defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });

  // Reports the end of the cell's code — or of a timer callback that threw — to the host.
  const reportEnd = (error?: any) => {
    if (exiting || error === EXIT || error === undefined) {
      send(DONE, "");
      return;
    }
    let text;
    try {
      const info = describeThrown(error);
      text = info === OUT_OF_MEMORY ? OUT_OF_MEMORY_TEXT : info === UNDESCRIBABLE ? UNDESCRIBABLE_TEXT : stringify(info);
    } catch {
      text = UNDESCRIBABLE_TEXT;
    }
    send(DONE, text);
  };

  // Shared memory: a name the workspace does not define resolves to the job's memory value, read from the host
  // when used (a journaled crossing, so a replay reads what the first run read). Each name is an accessor of the
  // global object, defined only where the name is free: a workspace variable, context value or tool of the same
  // name shadows it. Assigning it — a declaration included, which a cell compiles to an assignment — is refused.
  // The accessors are no variables: the collect and `variable` pass them by (`isShared`).
  const SHARED = ops.shared!;
  const sharedGetters = new Map<string, Function>();
  const lookupGetter: (this: unknown, name: string) => unknown = (Object.prototype as any).__lookupGetter__;
  const isShared = (name: string) => {
    const getter = sharedGetters.get(name);
    return getter !== undefined && lookupGetter.call(G, name) === getter;
  };
  const shareName = (name: string) => {
    const get = freeze(function () {
      return answer(send(SHARED, name));
    });
    const set = freeze(function () {
      throw makeError({ name: "PermissionError", message: "'" + name + "' is shared memory and read-only here; use remember(…)" });
    });
    defineProperty(G, name, { get, set, enumerable: false, configurable: true });
    sharedGetters.set(name, get);
  };

  installHostClock(G, send, answer, randomBatch, ops);
  installRealm(G, {
    send,
    ops,
    answer,
    hostValueName(value: object) {
      const dead = tombstones.get(value);
      if (dead) return "a value that was not persisted (" + dead.why + ")";
      const ref = handles.refOf(value);
      return ref ? "a host object (" + (ref.c || "object") + ")" : undefined;
    },
    failCell(error: unknown) {
      if (failRunning) failRunning(error);
      else reportEnd(error);
    },
  });
  // A timer callback that throws ends the cell, whether its code is still running or finished.
  const resetTimers = installGuestTimers(G, send, answer, ops, (error: unknown) => (failRunning ? failRunning(error) : reportEnd(error)));
  // Ends the cell as `exit(status)` does; a `failure` (`failTask(reason)`) ends the job FAILED instead.
  const exitWith = (status: unknown, failure: string | undefined): never => {
    if (failure === undefined) answer(send(EXIT_OP, encode(status)));
    else answer(send(EXIT_OP, encode(status), failure));
    exiting = true;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a sentinel no Error-catching code mistakes for a failure
    throw EXIT;
  };
  ({ childHandle, taskKeyOf, fromTaskKey } = installGuestWaits(G, send, answer, ops, exitWith));
  // The engine hands `Error.prepareStackTrace` call sites whose `getFunction()` returns the functions on the
  // stack, the runtime's own among them. Nothing is secret there (the broker checks everything), but agent
  // code has no business with the runtime's closures: the hook is fixed to "none".
  if ("prepareStackTrace" in G.Error) defineProperty(G.Error, "prepareStackTrace", { value: undefined, writable: false, configurable: false });
  // The runtime's functions are frozen, like the realm's: a property set on one (`print.cache = list`) would be
  // state outside every variable, which a warm VM keeps and a cold one has not (and no collect could see).
  hidden("console", freeze({
    log: freeze((...args: unknown[]) => emit("out", args)),
    info: freeze((...args: unknown[]) => emit("out", args)),
    debug: freeze((...args: unknown[]) => emit("out", args)),
    warn: freeze((...args: unknown[]) => emit("err", args)),
    error: freeze((...args: unknown[]) => emit("err", args)),
  }));
  hidden("print", freeze((...args: unknown[]) => emit("out", args)));
  hidden("exit", freeze((status?: unknown) => exitWith(status, undefined)));

  const variables = variablesParts.create(G, {
    codec,
    isShared,
    tombstone,
    isHandle: (value: object) => handles.refOf(value) !== undefined,
    parse,
    stringify,
    createVariableUses: variablesParts.uses,
    createCollectScope: variablesParts.scope,
    regroupFloor: variablesParts.regroupFloor,
  });

  const statek = {
    /** Marks a top-level function or class so it persists as source (the compiler flags `#private` members). */
    def(fn: Function, hasPrivateMembers?: boolean) {
      if (typeof fn === "function") definitions.add(fn);
      if (typeof fn === "function" && hasPrivateMembers) privateClasses.add(fn);
      return fn;
    },
    /** Declares hoisted `var` names that do not exist yet, as a script would. */
    declare(names: string[]) {
      for (const name of names) if (!(name in G)) G[name] = undefined;
    },
    /** Called first in every `catch` block of a cell: after `exit()`, nothing may catch the exit. */
    checkExit() {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the exit sentinel, as in exit()
      if (exiting) throw EXIT;
    },
    /** Echoes the value of a top-level expression statement. */
    echo(value: unknown) {
      if (value !== undefined) emit("echo", [value]);
    },
    /** Runs one compiled cell and reports its end to the host. Only the cell the host armed may call it. */
    run(body: () => Promise<unknown>) {
      if (!armed) throw new TypeError("__statek.run is internal to the workspace");
      armed = false;
      let finished = false;
      const finish = (error?: any) => {
        if (finished) return;
        finished = true;
        failRunning = undefined;
        reportEnd(error);
      };
      exiting = false;
      failRunning = finish;
      try {
        body().then(() => finish(), finish);
      } catch (error) {
        finish(error);
      }
    },
  };
  for (const name of Object.keys(statek)) freeze((statek as Record<string, Function>)[name]);
  // Fixed in place: compiled cells depend on it, so agent code may neither replace nor delete it.
  defineProperty(G, "__statek", { writable: false, configurable: false, enumerable: false, value: freeze(statek) });

  return {
    /** Arms `__statek.run` for the cell the host evaluates next. */
    begin() {
      armed = true;
      resetTimers();
      return "";
    },
    /** Settles a pending host promise. */
    settle(idText: string, reply: string) {
      const id = Number(idText);
      const entry = pending.get(id);
      if (!entry) return "";
      pending.delete(id);
      try {
        // Approved: the call is made again (a new crossing the host runs once), in a job of its own.
        if (typeof reply === "string" && reply.charCodeAt(0) === 97 /* a */) {
          const again = entry.again;
          if (!again) throw makeError({ name: "InternalError", message: "an approval came for a call that cannot be made again" });
          const key = reply.slice(1);
          entry.resolve(Promise.resolve().then(() => answer(again(key))));
        } else entry.resolve(answer(reply));
      } catch (error) {
        entry.reject(error);
      }
      return "";
    },
    /** Defines host-provided globals (tools, context); they are not workspace variables. */
    provide: variables.provide,
    /** The names of shared memory in scope for the next cell, as JSON `[[name, category], …]`. */
    share(text: string) {
      const entries = parse(text);
      const wanted = new Set<string>();
      for (let i = 0; i < entries.length; i++) wanted.add(String(entries[i][0]));
      sharedGetters.forEach((_getter, name) => {
        if (wanted.has(name)) return;
        if (isShared(name)) delete G[name];
        sharedGetters.delete(name);
      });
      wanted.forEach((name) => {
        if (name === "__proto__" || name.startsWith("__statek") || isShared(name)) return;
        // A variable, a context value, a tool or a built-in of that name shadows it.
        if (Object.prototype.hasOwnProperty.call(G, name)) {
          sharedGetters.delete(name);
          return;
        }
        shareName(name);
      });
      return "";
    },
    /** The transfer-encoded value of a variable or provided global (`ctx.variable`), or `""`. */
    variable: variables.variable,
    /** Restores persisted variables (`guest-variables.ts`). */
    restore: variables.restore,
    /** Encodes the variables the cell could have changed (`guest-variables.ts`); `"full"` encodes them all. */
    collect: variables.collect,
  };
}
