/**
 * @module
 * The guest runtime: the code every workspace VM runs before the first cell. It gives agent code `console`,
 * `print` and `exit`, turns handle references into proxies whose every property read, write and call is a
 * message to the host broker, restores and collects workspace variables with the codec, and reports the end
 * of each cell.
 *
 * {@link installGuestRuntime} is evaluated *inside* the sandbox from its source text, so it must be
 * self-contained (no imports, no outer variables). Its only link to the host is the `send` function, which
 * takes an operation name and string arguments and returns a JSON reply text synchronously:
 * `{"v": value}` (a codec text inside), `{"e": {name, message}}` (throw), `{"p": id}` (a pending host promise,
 * settled later through `__statek.settle`), or `{"m": 1}` (the property is a method).
 */

/** Installs the guest runtime on the guest's global object. Runs inside the sandbox; see the module comment. */
export function installGuestRuntime(send: (op: string, ...args: string[]) => string, createCodec: Function): void {
  const G: any = globalThis;
  const handles = new Map<number, any>();
  const handleRefs = new WeakMap<object, any>();
  const definitions = new WeakSet<Function>();
  // Classes with `#private` members: their instances cannot be rebuilt from data (the brand is lost), so they
  // persist as tombstones. The mark travels with the stored source as a leading comment.
  const privateClasses = new WeakSet<Function>();
  const PRIVATE_MARK = "/*#private*/";
  const privateClassOf = (value: object) => {
    for (let proto = Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
      const cls = Object.prototype.hasOwnProperty.call(proto, "constructor") ? proto.constructor : undefined;
      if (cls && privateClasses.has(cls)) return cls;
    }
    return undefined;
  };
  // What each tombstone stands for, so storing it again keeps its reason (or the handle key to retry).
  const tombstones = new WeakMap<object, { why: string; k?: string }>();
  const pending = new Map<number, any>();
  const EXIT = { exit: true };
  // Set by `exit()`: every `catch` of the cell re-throws (the compiler calls `checkExit` there).
  let exiting = false;
  const indirectEval = G.eval;
  let order: string[] = [];
  let baseline: Map<string, unknown> = new Map();
  const provided = new Set<string>();

  const makeError = (info: any) => {
    const error = new Error(info && info.message !== undefined ? String(info.message) : String(info));
    error.name = info && info.name ? String(info.name) : "Error";
    return error;
  };

  const tombstone = (why: string, path: string, key?: string) => {
    const fail = () => {
      throw new ReferenceError(path + " was not persisted: " + why);
    };
    // A plain function target, so `new` on a tombstone reaches the construct trap too.
    const proxy = new Proxy(function () {}, {
      get: (_t, prop) => (prop === "then" || typeof prop === "symbol" ? undefined : fail()),
      set: fail, apply: fail, construct: fail, has: fail, ownKeys: fail, deleteProperty: fail, defineProperty: fail,
      getOwnPropertyDescriptor: fail,
    });
    tombstones.set(proxy, key === undefined ? { why } : { why, k: key });
    return proxy;
  };

  const codec: any = createCodec({
    handleOf(value: object, mode: string) {
      const dead = tombstones.get(value);
      if (dead) return dead.k !== undefined && mode === "persist" ? { k: dead.k } : { why: dead.why };
      const branded = mode === "persist" && typeof value === "object" ? privateClassOf(value) : undefined;
      if (branded) {
        const own = Object.getPrototypeOf(value).constructor;
        return { why: "an instance of " + ((own && own.name) || branded.name) + ", whose #private members cannot be kept" };
      }
      const ref = handleRefs.get(value);
      if (!ref) return undefined;
      if (mode === "transfer") return { id: ref.id };
      return ref.k ? { k: ref.k } : { why: ref.why || "a host object that cannot be restored" };
    },
    fromHandle(ref: any, path: string) {
      if (ref.id !== undefined) return makeHandle(ref);
      const reply = JSON.parse(send("resolve", ref.k, path));
      if (reply.e) return tombstone(String(reply.e.message), path, ref.k);
      return codec.decode(reply.v);
    },
    definitionOf(fn: Function) {
      if (!definitions.has(fn)) return undefined;
      return (privateClasses.has(fn) ? PRIVATE_MARK : "") + Function.prototype.toString.call(fn);
    },
    fromDefinition(source: string, name: string) {
      const value = indirectEval("(" + source + "\n)");
      if (source.startsWith(PRIVATE_MARK)) privateClasses.add(value);
      // An arrow function re-evaluated alone loses the name it got from its declaration.
      if (typeof value === "function" && name && value.name !== name) Object.defineProperty(value, "name", { value: name });
      definitions.add(value);
      return value;
    },
    classOf(value: object) {
      const proto = Object.getPrototypeOf(value);
      const cls = proto && Object.prototype.hasOwnProperty.call(proto, "constructor") ? proto.constructor : undefined;
      return cls && definitions.has(cls) && cls.prototype === proto ? cls : undefined;
    },
    tombstone,
  });

  // The host's answer to one message, as a guest value (or a thrown error, or a pending promise).
  const answer = (replyText: string) => {
    if (replyText === "{}") return undefined;
    const reply = JSON.parse(replyText);
    if (reply.e) throw makeError(reply.e);
    if (reply.p !== undefined) return new Promise((resolve, reject) => pending.set(reply.p, { resolve, reject }));
    return reply.v === undefined ? undefined : codec.decode(reply.v);
  };
  const encodeArgs = (args: unknown[]) => codec.encode(args, "transfer");

  function makeHandle(ref: any): any {
    const existing = handles.get(ref.id);
    if (existing) return existing;
    const id = String(ref.id);
    const methods = new Map<string, Function>();
    const refuse = (what: string) => {
      throw new TypeError("cannot " + what + " a host object (" + (ref.c || "object") + ")");
    };
    const target = ref.f ? (() => {}) : {};
    const proxy: any = new Proxy(target, {
      get(_t, prop) {
        if (typeof prop === "symbol" || prop === "then") return undefined;
        const cached = methods.get(prop);
        if (cached) return cached;
        const reply = JSON.parse(send("get", id, prop));
        if (reply.e) throw makeError(reply.e);
        if (reply.m) {
          const method = { [prop]: (...args: unknown[]) => answer(send("call", id, prop, encodeArgs(args))) }[prop];
          methods.set(prop, method);
          return method;
        }
        return reply.v === undefined ? undefined : codec.decode(reply.v);
      },
      set(_t, prop, value) {
        if (typeof prop === "symbol") return refuse("set a symbol property on");
        answer(send("set", id, prop, codec.encode(value, "transfer")));
        return true;
      },
      has(_t, prop) {
        if (typeof prop === "symbol") return false;
        return answer(send("has", id, prop)) === true;
      },
      ownKeys() {
        return answer(send("keys", id));
      },
      getOwnPropertyDescriptor(_t, prop) {
        if (typeof prop === "symbol" || answer(send("has", id, prop)) !== true) return undefined;
        return { value: proxy[prop], writable: true, enumerable: true, configurable: true };
      },
      apply(_t, _this, args) {
        return answer(send("call", id, "", encodeArgs(args)));
      },
      construct: () => refuse("construct"),
      deleteProperty: () => refuse("delete a property of"),
      defineProperty: () => refuse("define a property on"),
      getPrototypeOf: () => null,
      setPrototypeOf: () => refuse("change the prototype of"),
      preventExtensions: () => refuse("freeze"),
    });
    handles.set(ref.id, proxy);
    handleRefs.set(proxy, ref);
    return proxy;
  }

  // A thrown value that is not an error, as the model reads it: the host formats it like an echo.
  const describeThrown = (value: unknown) => {
    if (typeof value === "string") return JSON.stringify(value);
    try {
      return String(answer(send("repr", codec.encode(value, "transfer"))));
    } catch {
      return String(value);
    }
  };
  const emit = (kind: string, args: unknown[]) => {
    answer(send("print", kind, encodeArgs(args)));
  };
  const hidden = (name: string, value: unknown) =>
    Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });

  hidden("console", Object.freeze({
    log: (...args: unknown[]) => emit("out", args),
    info: (...args: unknown[]) => emit("out", args),
    debug: (...args: unknown[]) => emit("out", args),
    warn: (...args: unknown[]) => emit("err", args),
    error: (...args: unknown[]) => emit("err", args),
  }));
  hidden("print", (...args: unknown[]) => emit("out", args));
  hidden("exit", (status?: unknown) => {
    answer(send("exit", codec.encode(status, "transfer")));
    exiting = true;
    throw EXIT;
  });

  // Workspace variables are the globals the cells created, plus provided globals a cell replaced.
  const workspaceNames = () =>
    Object.getOwnPropertyNames(G).filter(
      (name) => !name.startsWith("__statek") && !(baseline.has(name) && Object.is(baseline.get(name), G[name])),
    );

  hidden("__statek", Object.freeze({
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
      if (exiting) throw EXIT;
    },
    /** Echoes the value of a top-level expression statement. */
    echo(value: unknown) {
      if (value !== undefined) emit("echo", [value]);
    },
    /** Runs one compiled cell and reports its end to the host. */
    run(body: () => Promise<unknown>) {
      const finish = (error?: any) => {
        if (exiting || error === EXIT || error === undefined) return send("done", "");
        let info;
        if (error instanceof Error || (error && typeof error === "object" && "message" in error)) {
          info = { name: String(error.name || "Error"), message: String(error.message) };
        } else {
          info = { name: "Error", message: "uncaught " + describeThrown(error) };
        }
        send("done", JSON.stringify(info));
      };
      exiting = false;
      try {
        body().then(() => finish(), finish);
      } catch (error) {
        finish(error);
      }
    },
    /** Settles a pending host promise. */
    settle(idText: string, replyText: string) {
      const id = Number(idText);
      const entry = pending.get(id);
      if (!entry) return;
      pending.delete(id);
      try {
        entry.resolve(answer(replyText));
      } catch (error) {
        entry.reject(error);
      }
    },
    /** Defines host-provided globals (tools, context); they are not workspace variables. */
    provide(text: string) {
      const values = codec.decode(text);
      for (const name of Object.keys(values)) {
        hidden(name, values[name]);
        provided.add(name);
      }
      for (const name of Object.getOwnPropertyNames(G)) baseline.set(name, G[name]);
    },
    /** Restores persisted variables, in definition order. */
    restore(text: string) {
      const entries = JSON.parse(text);
      order = entries.map((entry: [string, string]) => entry[0]);
      codec.decodeAll(entries, (name: string, value: unknown) => {
        G[name] = value;
      });
    },
    /**
     * The transfer-encoded value of the workspace variable or provided global `name` (live-variable binding,
     * `ctx.variable`), or `""` when there is none. Built-ins of the runtime are not variables.
     */
    variable(name: string) {
      if (name.startsWith("__statek") || !Object.prototype.hasOwnProperty.call(G, name)) return "";
      const value = G[name];
      if (!provided.has(name) && baseline.has(name) && Object.is(baseline.get(name), value)) return "";
      return codec.encode(value, "transfer");
    },
    /** Encodes the current workspace variables: `{ texts, problems, order }` as JSON. */
    collect() {
      const names = workspaceNames();
      const present = new Set(names);
      order = order.filter((name) => present.has(name));
      for (const name of names) if (!order.includes(name)) order.push(name);
      const encoded = codec.encodeAll(order.map((name) => [name, G[name]]), "persist");
      return JSON.stringify({ texts: encoded.texts, problems: encoded.problems, order });
    },
  }));
}
