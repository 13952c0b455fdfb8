/**
 * @module
 * The workspace variables inside a VM: the globals the cells created, plus provided globals
 * a cell replaced. They are restored from their texts before the first cell of a VM and collected into texts
 * after every cell.
 *
 * **The collect is incremental.** Encoding every variable after every cell made a step's cost grow with the
 * workspace; a collect now encodes only the variables the cell could have changed, and the others keep their
 * stored text with no work at all. Which ones: the bindings the cell used (seen by the bindings themselves,
 * `guest-variable-uses.ts`, so no way of reaching a variable escapes), the variables that are not armed (new
 * ones, ones agent code redefined), and everything in their groups (`guest-collect-scope.ts`: variables whose
 * texts share values, and variables one cell used together). The places a value could hide that no binding
 * guards are closed or watched: the runtime's own functions are frozen; provided globals holding guest data
 * (the agent's plain-data context) are armed like variables and grouped, never stored; a symbol-keyed global
 * or a new prototype of the global object makes every later collect of the VM a full one. docs/architecture.md
 * gives the argument.
 *
 * {@link createWorkspaceVariables} runs *inside* the sandbox from its source text, so it is self-contained. Like
 * the collect scope's, its loops read pairs by index (destructuring is slow in QuickJS).
 */

/** What the variables need from the guest runtime. */
export interface VariablesLink {
  /** The runtime's codec (`encodeAll`, `decodeAll`, `decode`, `encode`). */
  codec: any;
  /** A tombstone standing for a value that could not be kept. */
  tombstone(why: string, path: string): unknown;
  /** True for a handle (a host object's proxy): it holds no guest state. */
  isHandle(value: object): boolean;
  /** True while global `name` is a shared-memory accessor of the runtime's: no variable. */
  isShared(name: string): boolean;
  parse(text: string): any;
  stringify(value: unknown): string;
  /** `createVariableUses` (`guest-variable-uses.ts`). */
  createVariableUses: Function;
  /** `createCollectScope` (`guest-collect-scope.ts`) and its regroup floor. */
  createCollectScope: Function;
  regroupFloor: number;
}

/** The private entries that deal with variables. */
export interface WorkspaceVariables {
  provide(text: string): string;
  variable(name: string): string;
  restore(text: string): string;
  collect(mode?: string): string;
}

/** Creates the variables of one VM. Runs inside the sandbox; see the module comment. */
export function createWorkspaceVariables(G: any, link: VariablesLink): WorkspaceVariables {
  const { codec, parse, stringify } = link;
  const defineProperty = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const ownNames = Object.getOwnPropertyNames;
  const ownSymbols = Object.getOwnPropertySymbols;
  const prototypeOf = Object.getPrototypeOf;
  const isExtensible = Object.isExtensible;
  const hasOwn = (name: string) => Object.prototype.hasOwnProperty.call(G, name);
  const MAX_REASON = 10_000;
  const clip = (text: string) => (text.length > MAX_REASON ? text.slice(0, MAX_REASON) + "…" : text);
  const isObject = (value: unknown) => (typeof value === "object" && value !== null) || typeof value === "function";
  const uses = link.createVariableUses(G);
  const scope = link.createCollectScope(link.regroupFloor);

  // The variables in definition order; the same names as a set, and each name's place (made when needed).
  let order: string[] = [];
  let listed = new Set<string>();
  let places: Map<string, number> | undefined;
  const setOrder = (names: string[]) => {
    order = names;
    listed = new Set(names);
    places = undefined;
  };
  // `names` in definition order. A few of many are sorted by their places instead of filtering every name.
  const inOrder = (names: ReadonlySet<string>): string[] => {
    if (names.size * 8 > order.length) return order.filter((name) => names.has(name));
    if (!places) {
      places = new Map();
      for (let i = 0; i < order.length; i++) places.set(order[i]!, i);
    }
    const chosen: string[] = [];
    names.forEach((name) => {
      if (listed.has(name)) chosen.push(name);
    });
    return chosen.sort((a, b) => places!.get(a)! - places!.get(b)!);
  };
  const baseline: Map<string, unknown> = new Map();
  const provided = new Set<string>();
  // Provided globals holding guest data that code may change: armed like variables, grouped, never stored.
  const carriers = new Set<string>();
  // Set for good once the global object holds something no binding guards (a symbol-keyed property, another
  // prototype): every later collect of this VM is a full one.
  let untracked = false;
  let baseProto: unknown;
  let baseSymbols: Array<[symbol, PropertyDescriptor]> = [];

  const globalObjectChanged = () => {
    if (prototypeOf(G) !== baseProto) return true;
    const symbols = ownSymbols(G);
    if (symbols.length !== baseSymbols.length) return true;
    for (let i = 0; i < symbols.length; i++) {
      const symbol = baseSymbols[i]![0];
      const base = baseSymbols[i]![1];
      const now = describe(G, symbols[i]!);
      if (symbols[i] !== symbol || !now || now.value !== base.value || now.get !== base.get || now.set !== base.set) return true;
    }
    return false;
  };

  // One pass over the global object's names: the variables (globals the cells created, plus provided globals a
  // cell replaced), and among them the ones no accessor of ours guards. It looks at each variable's accessor as
  // it goes (forgetting one agent code replaced), so the armed names to sweep are only those it did not see.
  const survey = () => {
    const variables: string[] = [];
    const unguarded: string[] = [];
    let verified = 0;
    for (const name of ownNames(G)) {
      if (name === "__statek" || link.isShared(name)) continue;
      if (baseline.has(name)) {
        try {
          if (Object.is(baseline.get(name), uses.peek(name))) continue;
        } catch {
          // A provided global replaced by a getter that throws: collect makes it a tombstone.
        }
      }
      variables.push(name);
      if (uses.verify(name)) verified++;
      else unguarded.push(name);
    }
    // The carriers still holding their provided value were skipped above; an armed name not seen at all is no
    // longer on the global object (deleted), and only then is every armed name looked at again.
    carriers.forEach((name) => {
      if (variables.indexOf(name) < 0 && uses.verify(name)) verified++;
    });
    if (uses.armedCount() > verified) uses.sweep();
    return { variables, unguarded };
  };

  // The binding's value, read without running agent code: an accessor of agent code's own reads as
  // `UNKNOWN` (it may give anything).
  const UNKNOWN = {};
  const current = (name: string) => {
    if (uses.isArmed(name)) return uses.peek(name);
    const desc = describe(G, name);
    return !desc ? undefined : "value" in desc ? desc.value : UNKNOWN;
  };

  const readable = (name: string) => {
    try {
      return [name, uses.peek(name)];
    } catch (error: any) {
      let reason;
      try {
        reason = error instanceof Error ? error.name + ": " + error.message : "a thrown " + typeof error;
      } catch {
        reason = "an error that could not be read";
      }
      return [name, link.tombstone("it could not be read (" + clip(reason) + ")", name)];
    }
  };

  // The text's root value is a node it owns, the first one.
  const ownsRoot = (text: string) => text.startsWith('{"v":{"$":"ref","i":0}');
  const encodeInOrder = (names: ReadonlySet<string>) => codec.encodeAll(inOrder(names).map(readable), "persist");

  // A text that may hold anything but plain data, found without parsing it: a reference into another variable,
  // a host object, a definition or a class instance (decoding those runs agent code or needs the other
  // variables), an opaque value or a tombstone. The encoder writes these tags without spaces, and a JSON string
  // holding the same characters has its quotes escaped, so plain data never matches; a text that matches is
  // restored eagerly.
  const NOT_PLAIN = /"\$"\s*:\s*"(?:xref|h|opaque|tomb)"|"t"\s*:\s*"(?:fn|tomb)"|"c"\s*:|\\u/;

  /**
   * The names of `entries` restored lazily: plain data (see `NOT_PLAIN`) that no other text refers into, not yet
   * a property of the global object (restoring over a VM replaces values in place), and neither `__proto__` nor
   * a shared-memory name. What the others refer into is found by its quoted name in their texts: a name that
   * merely appears there is restored eagerly too, which costs time and changes nothing.
   */
  const lazyEntries = (entries: Array<[string, string]>): Set<string> => {
    const lazy = new Set<string>();
    const referring: string[] = [];
    for (const entry of entries) {
      const name = entry[0];
      const text = entry[1];
      if (NOT_PLAIN.test(text)) {
        if (text.indexOf('"xref"') >= 0) referring.push(text);
        continue;
      }
      if (name !== "__proto__" && !hasOwn(name) && !link.isShared(name)) lazy.add(name);
    }
    if (referring.length) {
      lazy.forEach((name) => {
        const quoted = stringify(name);
        for (const text of referring) {
          if (text.indexOf(quoted) >= 0) {
            lazy.delete(name);
            return;
          }
        }
      });
    }
    return lazy;
  };

  // Decodes one lazily restored variable on its first read. It shares nothing, so it decodes alone as it would
  // have with the others; a text that cannot be read becomes a tombstone, encoded again by the next collect.
  const lazyLoader = (name: string, text: string) => () => {
    let value: unknown;
    codec.decodeAll([[name, text]], (_name: string, decoded: unknown) => (value = decoded), {
      isolate: true,
      broken: () => uses.markUsed(name),
      altered: () => uses.markUsed(name),
    });
    return value;
  };

  return {
    /** Defines host-provided globals (tools, context); they are not workspace variables. */
    provide(text: string) {
      const values = codec.decode(text);
      for (const name of Object.keys(values)) {
        // A built-in's global binding is not configurable (the realm is locked down): its value is replaced.
        const own = describe(G, name);
        if (own && !own.configurable) defineProperty(G, name, { value: values[name], writable: true, enumerable: false });
        else defineProperty(G, name, { value: values[name], writable: true, configurable: true, enumerable: false });
        provided.add(name);
      }
      for (const name of ownNames(G)) baseline.set(name, G[name]);
      baseProto = prototypeOf(G);
      baseSymbols = ownSymbols(G).map((symbol) => [symbol, describe(G, symbol)!]);
      for (const name of provided) {
        const value = G[name];
        if (!isObject(value) || link.isHandle(value) || !isExtensible(value)) continue;
        carriers.add(name);
        if (!uses.arm(name)) untracked = true;
      }
      return "";
    },
    /**
     * The transfer-encoded value of the workspace variable or provided global `name` (live-variable binding,
     * `ctx.variable`), or `""` when there is none. Built-ins of the runtime are not variables.
     */
    variable(name: string) {
      if (name.startsWith("__statek") || !hasOwn(name) || link.isShared(name)) return "";
      const value = uses.peek(name);
      if (!provided.has(name) && baseline.has(name) && Object.is(baseline.get(name), value)) return "";
      return codec.encode(value, "transfer");
    },
    /**
     * Restores persisted variables, in definition order. A variable whose text cannot be decoded becomes a
     * tombstone saying so; the others are restored. `__proto__` is defined as the global's own property. Each
     * variable is armed as soon as it is assigned, so code that restoring runs (a class's static block) is seen.
     * A variable of plain data that shares nothing with the others is restored lazily: its binding is armed
     * with its text, decoded when something first reads it (see {@link lazyEntries}), so a cell pays only for
     * the variables it touches.
     */
    restore(text: string) {
      const entries: Array<[string, string]> = parse(text);
      setOrder(entries.map((entry) => entry[0]));
      scope.reset();
      const lazy = lazyEntries(entries);
      const shares = new Map<string, Array<[string, number]>>();
      const values = new Map<string, unknown>();
      // Lazy variables take their place among the others: each is defined just before the next eager one
      // assigned. (Definitions are assigned ahead of the rest, `class B extends A`: only a name still ahead of
      // `next` moves it.)
      let next = 0;
      const placeOf = new Map<string, number>();
      if (lazy.size) for (let i = 0; i < entries.length; i++) placeOf.set(entries[i]![0], i);
      const defineLazyBefore = (place: number) => {
        for (; next < place; next++) {
          const entry = entries[next]!;
          if (lazy.has(entry[0])) uses.armLazy(entry[0], lazyLoader(entry[0], entry[1]));
        }
      };
      codec.decodeAll(lazy.size ? entries.filter((entry) => !lazy.has(entry[0])) : entries, (name: string, value: unknown) => {
        const place = lazy.size ? placeOf.get(name)! : -1;
        if (place >= next) {
          defineLazyBefore(place);
          next = place + 1;
        }
        uses.disarm(name);
        // Defined, not assigned, over a shared-memory accessor (whose setter refuses): a variable shadows shared memory.
        if (name === "__proto__" || !hasOwn(name) || link.isShared(name)) defineProperty(G, name, { value, writable: true, enumerable: true, configurable: true });
        else G[name] = value;
        values.set(name, value);
        uses.arm(name);
      }, {
        isolate: true,
        sharing: (name: string, refs: Array<[string, number]>) => shares.set(name, refs),
        // A value that came out other than its text says must be encoded again, as if the cell had used it.
        broken: (name: string) => uses.markUsed(name),
        altered: (name: string) => uses.markUsed(name),
      });
      defineLazyBefore(entries.length);
      for (const entry of entries) scope.note(entry[0], shares.get(entry[0]) || [], entry[1].length, values.get(entry[0]));
      return "";
    },
    /**
     * Encodes the workspace variables the cell could have changed, reported as `collect-report.ts` reads it:
     * `{ problems, order?, encoded, regroup, texts }` — `texts` names only those, `order` every variable when the set of variables changed
     * (a name missing from it was deleted), `encoded` how many were encoded, `regroup` asks for a restore
     * before the next cell. `mode` `"full"` encodes every variable (the reference the incremental collect is
     * tested against) and keeps the same books. Guarded per variable: one that cannot be read (a getter that throws, a revoked proxy, a
     * detached buffer, nesting too deep) becomes a tombstone with the reason, and the others are kept.
     */
    collect(mode?: string) {
      const { variables, unguarded } = survey();
      // Most collects find the variables of the last one. A new variable holds no accessor of ours (it is
      // unguarded), and one that does was listed when it was armed; so when every unguarded one is listed and
      // the counts agree, the variables are exactly the listed ones.
      const same = variables.length === order.length && unguarded.every((name) => listed.has(name));
      const present = same ? listed : new Set(variables);
      const gone = same ? new Set<string>() : new Set(order.filter((name) => !present.has(name)));
      const reordered = !same && (gone.size > 0 || order.length !== variables.length);
      if (reordered) {
        const next = gone.size ? order.filter((name) => present.has(name)) : order.slice();
        const known = new Set(next);
        for (const name of variables) if (!known.has(name)) next.push(name);
        setOrder(next);
      }
      if (!untracked && globalObjectChanged()) untracked = true;
      const full = mode === "full" || untracked;

      // What may have changed: the names used, the variables no accessor guards (new, redefined), and the
      // deleted ones (the variables that shared values with them are encoded again without them).
      const used: Set<string> = uses.takeUsed();
      for (const name of unguarded) used.add(name);
      for (const name of gone) used.add(name);
      let plan = scope.plan(used, gone);
      let everything = full;
      let encoded = everything ? codec.encodeAll(order.map(readable), "persist") : encodeInOrder(plan.names);
      // Agent code that ran while encoding (a getter, a proxy's trap) used more: those join the plan, and the
      // collect encodes every variable (encoding again would run that code again).
      const noteLate = () => {
        const late: Set<string> = uses.takeUsed();
        for (const name of late) used.add(name);
        if (!late.size) return false;
        plan = scope.plan(used, gone);
        if (!everything) {
          everything = true;
          encoded = codec.encodeAll(order.map(readable), "persist");
          uses.takeUsed();
        }
        return true;
      };
      noteLate();
      // A variable sharing only an encoded one's root stays out while that one still holds and owns its root.
      for (let again = true; again;) {
        again = false;
        // Whether an owner still holds and owns its root, once per owner (a class has an instance per sharer).
        const holds = new Map<string, boolean>();
        for (const pair of plan.rootSharers) {
          const owner = pair[0];
          const sharer = pair[1];
          if (used.has(sharer)) continue;
          let held = holds.get(owner);
          if (held === undefined) {
            const text = encoded.texts[owner];
            const root = present.has(owner) ? current(owner) : UNKNOWN;
            held = text !== undefined && ownsRoot(text) && root !== UNKNOWN && Object.is(root, scope.rootOf(owner));
            holds.set(owner, held);
          }
          if (!held) {
            used.add(sharer);
            again = true;
          }
        }
        if (again) {
          plan = scope.plan(used, gone);
          if (!everything) encoded = encodeInOrder(plan.names);
          noteLate();
        }
      }
      const chosen = everything ? order : inOrder(plan.names);
      // Where each text refers into other variables, as the encoder wrote it (scanning a large text for its
      // references again cost as much as a third of encoding it).
      for (const name of chosen) scope.note(name, encoded.refs[name], encoded.texts[name].length, current(name));
      // Everything the cell could reach may now be joined by ways the codec does not keep.
      const holders: string[] = [];
      for (const name of plan.names) if ((present.has(name) || carriers.has(name)) && isObject(current(name))) holders.push(name);
      scope.join(holders);
      let waste = 0;
      for (const name of plan.grouped) waste += scope.lengthOf(name);
      const regroup = scope.charge(waste);
      for (const name of gone) scope.forget(name);
      for (const name of used) if (present.has(name) && !uses.isArmed(name)) uses.arm(name);
      for (const name of carriers) {
        if (present.has(name) || uses.isArmed(name)) continue;
        const desc = describe(G, name);
        if (desc && "value" in desc && Object.is(desc.value, baseline.get(name)) && !uses.arm(name)) untracked = true;
      }
      // The report (`collect-report.ts`): a JSON header, then the texts as they are, each after the one before
      // (escaping them into one JSON string cost a tenth of encoding them). The names go to the host only when
      // they changed (it deletes the variables missing from them).
      const lengths: Array<[string, number]> = [];
      const bodies: string[] = [];
      for (const name of chosen) {
        const text: string = encoded.texts[name];
        lengths.push([name, text.length]);
        bodies.push(text);
      }
      const header = stringify({ problems: encoded.problems, ...(reordered ? { order } : {}), encoded: chosen.length, regroup, texts: lengths });
      return header + "\n" + bodies.join("");
    },
  };
}
