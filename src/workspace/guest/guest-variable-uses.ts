/**
 * @module
 * Which global bindings agent code used since the last collect (the incremental collect, see
 * `guest-collect-scope.ts` and docs/architecture.md). A workspace variable is *armed* between cells: its
 * global property is an accessor whose getter and setter note the name and put the plain data property back,
 * so the first use of a variable in a cell costs one redefinition and every later use runs at full speed.
 *
 * Because the trap is the binding itself, every way code can reach a variable is seen, whatever wrote that
 * code: an identifier in the cell, in a workspace function or class method it calls, in a closure an earlier
 * cell left behind, in code made by `eval` or a `Function` constructor, a `with` block, `globalThis[name]`,
 * `Object.values(globalThis)`, a sloppy function's `this`. Only reflection on the global object itself
 * (`Object.getOwnPropertyDescriptor(globalThis, name)`) can tell: it shows the accessor of a variable the cell
 * has not used yet. What the trap cannot see — a property that agent code redefined or deleted without using
 * it — the collect finds by asking {@link VariableUses.isArmed}, and treats as used.
 *
 * {@link createVariableUses} runs *inside* the sandbox from its source text, so it is self-contained.
 */

/** The armed bindings of one realm and the names used since the last {@link VariableUses.takeUsed}. */
export interface VariableUses {
  /** Arms the global `name` when it is a writable, configurable data property; false when it cannot be. */
  arm(name: string): boolean;
  /**
   * Defines global `name` (not yet a property) armed, its value made by `load` when first read: by agent code,
   * {@link peek} or {@link disarm}. Assigning it first never calls `load`.
   */
  armLazy(name: string, load: () => unknown): void;
  /** True while `name` holds this tracker's accessor (as last looked at: {@link verify}, {@link sweep}). */
  isArmed(name: string): boolean;
  /** True when `name` holds this tracker's accessor, looking now; one agent code replaced is forgotten. */
  verify(name: string): boolean;
  /** How many names are armed. */
  armedCount(): number;
  /** Forgets the accessors agent code replaced or deleted; looks at every armed name once. */
  sweep(): void;
  /** The value of global `name` without counting a use (an armed binding's value, else the property read). */
  peek(name: string): unknown;
  /** Puts an armed binding back as a plain data property without counting a use (restoring over it). */
  disarm(name: string): void;
  /** Counts a use of `name` that no accessor saw (a value restoring altered). */
  markUsed(name: string): void;
  /** The names used since the last call. */
  takeUsed(): Set<string>;
}

/** Creates the tracker of one realm. Runs inside the sandbox; see the module comment. */
export function createVariableUses(G: any): VariableUses {
  const defineProperty = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const isFrozen = Object.isFrozen;
  interface Slot {
    value: unknown;
    /** Makes the value on first read (a lazily restored variable); cleared once it ran or the binding was assigned. */
    load?: (() => unknown) | undefined;
    enumerable: boolean;
    get: () => unknown;
    set: (value: unknown) => void;
  }
  const armed = new Map<string, Slot>();
  let used = new Set<string>();

  // The slot's accessor is still the property: agent code may have redefined or deleted it since.
  // (`__lookupGetter__` answers without making a descriptor object: this runs for every variable, every cell.)
  const lookupGetter: (this: unknown, name: string) => unknown = (Object.prototype as any).__lookupGetter__;
  const current = (name: string, slot: Slot) => lookupGetter.call(G, name) === slot.get;
  // False when the global object was sealed or frozen since: the accessor stays, and keeps the value itself.
  const putBack = (name: string, slot: Slot, value: unknown) => {
    try {
      defineProperty(G, name, { value, writable: true, enumerable: slot.enumerable, configurable: true });
    } catch {
      return false;
    }
    armed.delete(name);
    return true;
  };

  // The slot's value, made now if it is still to be loaded. `load` is cleared first: a load that throws is not
  // retried (the restore's loader turns a text it cannot read into a tombstone itself).
  const valueOf = (slot: Slot) => {
    const load = slot.load;
    if (load) {
      slot.load = undefined;
      slot.value = load();
    }
    return slot.value;
  };

  function arm(name: string): boolean {
    if (name === "__proto__") return false;
    const desc = describe(G, name);
    if (!desc || !("value" in desc) || !desc.writable || !desc.configurable) return false;
    const slot = { value: desc.value, enumerable: !!desc.enumerable } as Slot;
    slot.get = function () {
      used.add(name);
      if (armed.get(name) === slot && current(name, slot)) {
        const value = valueOf(slot);
        putBack(name, slot, value);
        return value;
      }
      // A getter kept from an earlier arming (agent code can take it from the property's descriptor).
      return G[name];
    };
    slot.set = function (value: unknown) {
      used.add(name);
      slot.load = undefined;
      if (armed.get(name) !== slot || !current(name, slot)) G[name] = value;
      // Sealed, the binding stays writable; frozen, it does not (a sloppy script's write does nothing).
      else if (!putBack(name, slot, value) && !isFrozen(G)) slot.value = value;
    };
    defineProperty(G, name, { get: slot.get, set: slot.set, enumerable: slot.enumerable, configurable: true });
    armed.set(name, slot);
    return true;
  }

  return {
    arm,
    armLazy(name, load) {
      defineProperty(G, name, { value: undefined, writable: true, enumerable: true, configurable: true });
      arm(name);
      armed.get(name)!.load = load;
    },
    isArmed: (name) => armed.has(name),
    verify(name) {
      const slot = armed.get(name);
      if (!slot) return false;
      if (current(name, slot)) return true;
      armed.delete(name);
      return false;
    },
    armedCount: () => armed.size,
    sweep() {
      // `forEach`, not `for…of` with destructuring: in QuickJS that makes an iterator and an entry per variable.
      armed.forEach((slot, name) => {
        if (!current(name, slot)) armed.delete(name);
      });
    },
    peek(name) {
      const slot = armed.get(name);
      return slot && current(name, slot) ? valueOf(slot) : G[name];
    },
    disarm(name) {
      const slot = armed.get(name);
      if (!slot) return;
      if (!current(name, slot)) armed.delete(name);
      else putBack(name, slot, valueOf(slot));
    },
    markUsed(name) {
      used.add(name);
    },
    takeUsed() {
      const taken = used;
      used = new Set();
      return taken;
    },
  };
}
