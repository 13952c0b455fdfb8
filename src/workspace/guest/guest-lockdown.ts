/**
 * @module
 * Lockdown of the guest realm, after Hardened JavaScript's `lockdown()`: once the guest
 * runtime is installed, every intrinsic reachable from the global object — `Object.prototype`,
 * `Array.prototype`, every constructor and its prototype, `Math`, `JSON`, `Reflect`, the anonymous ones
 * (`%TypedArray%`, the iterator and generator prototypes, `%ThrowTypeError%`) and the workspace's own globals
 * (`URL`, `TextEncoder`, …) — is frozen, so a cell cannot change the realm the next cell runs in. That is what
 * makes a warm VM behave like one rebuilt cold: the only state that outlives a cell is the workspace variables.
 *
 * - **The override mistake.** Freezing `Object.prototype` makes `obj.toString = …` fail, because an inherited
 *   read-only property blocks assignment. As SES does, the properties ordinary code overrides by assignment
 *   (everything on `Object.prototype`, `message`/`name`/`constructor`/`toString` of the error prototypes,
 *   `Function.prototype.toString`, …) become accessors whose setter defines an own property on the receiver
 *   and throws a `TypeError` when the receiver is the intrinsic itself.
 * - **Realm state behind accessors** is pinned: `Error.stackTraceLimit` (QuickJS) becomes a fixed data
 *   property; V8's legacy `RegExp.$1`-style statics, which remember the last match, are removed.
 * - **Global bindings of intrinsics** stay writable (a cell may declare `const URL = "…"` as a workspace
 *   variable) but become non-configurable, so `delete globalThis.Map` cannot make a warm VM differ from a cold
 *   one. The global object itself is not frozen, and neither are the runtime's own globals (`keep`).
 *
 * {@link lockdownRealm} runs *inside* the sandbox from its source text, so it is self-contained.
 */

/** Freezes the realm's intrinsics. Runs inside the sandbox, last in the bootstrap; see the module comment. */
export function lockdownRealm(G: any, keep: readonly string[]): void {
  const defineProperty = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const describeAll = Object.getOwnPropertyDescriptors;
  const prototypeOf = Object.getPrototypeOf;
  const freeze = Object.freeze;
  const ownKeys = Reflect.ownKeys;
  const hasOwn = (target: object, key: PropertyKey) => Object.prototype.hasOwnProperty.call(target, key);

  // Realm-wide state an accessor could change.
  const traceLimit = describe(G.Error, "stackTraceLimit");
  if (traceLimit && traceLimit.get && traceLimit.configurable) {
    defineProperty(G.Error, "stackTraceLimit", { value: traceLimit.get.call(G.Error), writable: false, enumerable: false, configurable: false });
  }
  const legacyStatics = ["input", "$_", "lastMatch", "$&", "lastParen", "$+", "leftContext", "$`", "rightContext", "$'"];
  for (let digit = 1; digit <= 9; digit++) legacyStatics.push("$" + digit);
  for (const name of legacyStatics) if (hasOwn(G.RegExp, name)) delete G.RegExp[name];

  // The override mistake: these data properties become accessors that let instances shadow them.
  const enable = (home: any, key: PropertyKey, path: string) => {
    const desc = describe(home, key);
    if (!desc || !("value" in desc) || !desc.configurable) return;
    const value = desc.value;
    const label = typeof key === "symbol" ? "[" + String(key) + "]" : String(key);
    defineProperty(home, key, {
      get: function () {
        return value;
      },
      set: function (this: any, next: unknown) {
        if (this === home) throw new TypeError("Cannot assign to read only property '" + label + "' of " + path + ": built-ins are frozen in the workspace");
        if (hasOwn(this, key)) this[key] = next;
        else defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
      },
      enumerable: desc.enumerable,
      configurable: true,
    });
  };
  const enableAll = (home: any, path: string) => {
    if (home) for (const key of ownKeys(home)) enable(home, key, path);
  };
  const enableSome = (home: any, keys: readonly PropertyKey[], path: string) => {
    if (home) for (const key of keys) enable(home, key, path);
  };
  const typedArray = prototypeOf(G.Uint8Array);
  const generator = prototypeOf(function* () {});
  enableAll(G.Object.prototype, "Object.prototype");
  enableSome(G.Array.prototype, ["toString", "push", "concat", Symbol.iterator], "Array.prototype");
  enableSome(G.Function.prototype, ["constructor", "bind", "toString"], "Function.prototype");
  enableSome(G.Error.prototype, ["constructor", "message", "name", "toString"], "Error.prototype");
  for (const name of ["EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "AggregateError"]) {
    if (typeof G[name] === "function") enableSome(G[name].prototype, ["constructor", "message", "name"], name + ".prototype");
  }
  enableSome(G.Promise.prototype, ["constructor"], "Promise.prototype");
  enableSome(G.Date.prototype, ["toJSON", "toString", "valueOf"], "Date.prototype");
  if (typedArray) enableAll(typedArray.prototype, "TypedArray.prototype");
  enableSome(generator, ["constructor", "toString"], "GeneratorFunction.prototype");
  if (G.Iterator) enableSome(G.Iterator.prototype, ["toString", "constructor", Symbol.toStringTag], "Iterator.prototype");

  // Every object reachable from the roots, through prototypes, values, getters and setters, is frozen. An
  // object is frozen when it is found, so "not extensible" means "seen" (no intrinsic starts out frozen; the
  // workspace suite walks the realm to check that nothing was missed).
  const isExtensible = Object.isExtensible;
  const stack: object[] = [];
  const reach = (value: unknown) => {
    if ((typeof value === "object" || typeof value === "function") && value !== null && isExtensible(value)) {
      freeze(value);
      stack.push(value);
    }
  };
  const skipped = new Set(keep);
  for (const name of ownKeys(G)) {
    if (typeof name === "string" && skipped.has(name)) continue;
    const desc: any = describe(G, name);
    if (desc.value !== G) reach(desc.value);
    reach(desc.get);
    reach(desc.set);
  }
  // Intrinsics that no global names: reached from values only syntax or a built-in method makes.
  const strictArguments = (function (this: unknown) {
    "use strict";
    return arguments;
  })();
  const anonymous = [
    generator, prototypeOf(async function () {}), prototypeOf(async function* () {}), typedArray,
    prototypeOf([][Symbol.iterator]()), prototypeOf(new G.Map().entries()), prototypeOf(new G.Set().values()),
    prototypeOf(""[Symbol.iterator]()), prototypeOf(/a/g[Symbol.matchAll]("a")), describe(strictArguments, "callee")!.get,
  ];
  try {
    anonymous.push(prototypeOf(G.Iterator.from({ next() {} })), prototypeOf(([].values() as any).map((item: unknown) => item)));
  } catch {
    // An engine without iterator helpers has no such prototypes.
  }
  for (const value of anonymous) reach(value);
  const functionPrototype = G.Function.prototype;
  while (stack.length) {
    const object: any = stack.pop();
    reach(prototypeOf(object));
    const keys = ownKeys(object);
    const descriptors: any = describeAll(object);
    for (let index = 0; index < keys.length; index++) {
      const desc = descriptors[keys[index]!];
      const value = desc.value;
      if (value === undefined) {
        reach(desc.get);
        reach(desc.set);
      } else if (typeof value === "function") {
        // Most values are built-in methods (own `length` and `name` only, `Function.prototype` as prototype):
        // frozen here, never stacked. This loop is most of the cost of making a VM, so it avoids calls.
        if (!isExtensible(value)) continue;
        freeze(value);
        const own = ownKeys(value);
        if (own.length !== 2 || own[0] !== "length" || own[1] !== "name" || prototypeOf(value) !== functionPrototype) stack.push(value);
      } else if (typeof value === "object" && value !== null && isExtensible(value)) {
        freeze(value);
        stack.push(value);
      }
    }
  }

  // Global bindings: writable as before, but no longer deletable or redefinable.
  for (const name of ownKeys(G)) {
    if (typeof name === "string" && skipped.has(name)) continue;
    const desc: any = describe(G, name);
    if (!desc.configurable) continue;
    // The full descriptor: a partial one would lose the value on a `node:vm` context's global.
    if ("value" in desc) defineProperty(G, name, { value: desc.value, writable: desc.writable, enumerable: desc.enumerable, configurable: false });
  }
}
