/**
 * @module
 * Which variables a collect must encode (the incremental collect; docs/architecture.md has the argument). A
 * cell reaches values only from the bindings it used (`guest-variable-uses.ts`); from there it can reach:
 *
 * - what their texts refer into (an `xref` to a value another variable owns): the owner is encoded too, or the
 *   shared value would be written into the wrong text;
 * - what code joined to them by ways the codec does not keep (a closure, a non-enumerable property, a method
 *   added to a class's prototype). Such a join can only be made by a cell that reached both sides, so every
 *   variable one cell reached falls into one *group* (until a restore rebuilds every value from its text).
 *
 * The variables whose texts refer into an encoded one are encoded too — unless they share only its root
 * value (every instance of a class refers to the class this way), which keeps its place as long as the
 * variable still holds it and owns it, checked once the texts are made (`refresh`).
 *
 * Groups only grow; when the variables encoded only because of their group have cost more, since the last
 * restore, than the whole workspace's texts (and more than {@link REGROUP_FLOOR} characters), the collect
 * asks the host to restore the VM before the next cell, which starts the groups over.
 *
 * {@link createCollectScope} runs *inside* the sandbox from its source text, so it is self-contained. Its loops
 * read pairs by index: in QuickJS, destructuring `[name, index]` goes through the iterator protocol (~0.7 µs a
 * pair, more than the rest of the loop).
 */

/** The plan of one collect: what to encode, and what must be checked once the texts are made. */
export interface CollectPlan {
  /** Names to encode (unordered; the caller encodes them in definition order). */
  names: Set<string>;
  /** Names included through their group alone (their cost is charged as waste). */
  grouped: Set<string>;
  /** Variables that share only the root value of an encoded variable: `[owner, sharer]`. */
  rootSharers: Array<[string, string]>;
}

/** The groups of one VM's variables, the references between their texts, and the texts' lengths. */
export interface CollectScope {
  /** Forgets everything: the VM's values were just rebuilt from their texts. */
  reset(): void;
  /**
   * Records variable `name`'s text: `length` characters, referring into the variables and node indices of
   * `refs`; `root` is the value the text was made from.
   */
  note(name: string, refs: ReadonlyArray<readonly [string, number]>, length: number, root: unknown): void;
  /** Forgets a variable that is gone (after the collect that found it gone). */
  forget(name: string): void;
  /** The root value the variable's last text was made from. */
  rootOf(name: string): unknown;
  /** What a cell that used `used` could have changed (`gone`: variables it deleted). */
  plan(used: Iterable<string>, gone: ReadonlySet<string>): CollectPlan;
  /** Puts `names` in one group (one cell reached them all). */
  join(names: readonly string[]): void;
  /** Charges `chars` wasted characters; true once a restore would have been cheaper than the groups. */
  charge(chars: number): boolean;
  /** Characters of the text last noted for `name` (0 when none). */
  lengthOf(name: string): number;
}

/** Below this many wasted characters a VM is never restored to start its groups over. */
export const REGROUP_FLOOR = 32_768;

/** Creates the scope of one VM. Runs inside the sandbox; see the module comment. */
export function createCollectScope(floor: number): CollectScope {
  // Groups: each name's group root, and each root's members.
  const rootOfGroup = new Map<string, string>();
  const members = new Map<string, string[]>();
  // What each text refers into ([name, index] pairs), and who refers into each variable.
  const refsOf = new Map<string, ReadonlyArray<readonly [string, number]>>();
  const referrers = new Map<string, Set<string>>();
  const lengths = new Map<string, number>();
  const roots = new Map<string, unknown>();
  let total = 0;
  let wasted = 0;

  const groupOf = (name: string) => members.get(rootOfGroup.get(name) ?? name) ?? [name];
  const unite = (a: string, b: string) => {
    let rootA = rootOfGroup.get(a) ?? a;
    let rootB = rootOfGroup.get(b) ?? b;
    if (rootA === rootB) return;
    let listA = members.get(rootA) ?? [rootA];
    let listB = members.get(rootB) ?? [rootB];
    if (listA.length > listB.length) {
      [rootA, rootB] = [rootB, rootA];
      [listA, listB] = [listB, listA];
    }
    for (const name of listA) {
      rootOfGroup.set(name, rootB);
      listB.push(name);
    }
    members.delete(rootA);
    members.set(rootB, listB);
  };
  const unlink = (name: string) => {
    for (const ref of refsOf.get(name) ?? []) referrers.get(ref[0])?.delete(name);
    refsOf.delete(name);
  };
  // True when every reference of `sharer` into `owner` is to its root value (node 0).
  const sharesRootOnly = (sharer: string, owner: string) => {
    for (const ref of refsOf.get(sharer) ?? []) if (ref[0] === owner && ref[1] !== 0) return false;
    return true;
  };

  return {
    reset() {
      rootOfGroup.clear();
      members.clear();
      refsOf.clear();
      referrers.clear();
      lengths.clear();
      roots.clear();
      total = 0;
      wasted = 0;
    },
    note(name, refs, length, root) {
      unlink(name);
      refsOf.set(name, refs);
      for (const ref of refs) {
        const target = ref[0];
        if (!referrers.has(target)) referrers.set(target, new Set());
        referrers.get(target)!.add(name);
      }
      total += length - (lengths.get(name) ?? 0);
      lengths.set(name, length);
      roots.set(name, root);
    },
    forget(name) {
      unlink(name);
      total -= lengths.get(name) ?? 0;
      lengths.delete(name);
      roots.delete(name);
    },
    rootOf: (name) => roots.get(name),
    lengthOf: (name) => lengths.get(name) ?? 0,
    plan(used, gone) {
      const names = new Set<string>();
      const viaLinks = new Set<string>();
      const rootSharers: Array<[string, string]> = [];
      // Twice: once following references only (what is needed in any case), then groups as well.
      for (const withGroups of [false, true]) {
        const seen = withGroups ? names : viaLinks;
        const stack = [...used];
        while (stack.length) {
          const name = stack.pop()!;
          if (seen.has(name)) continue;
          seen.add(name);
          if (withGroups) for (const member of groupOf(name)) stack.push(member);
          for (const ref of refsOf.get(name) ?? []) stack.push(ref[0]);
          for (const sharer of referrers.get(name) ?? []) {
            if (!gone.has(name) && sharesRootOnly(sharer, name)) {
              if (withGroups) rootSharers.push([name, sharer]);
            } else stack.push(sharer);
          }
        }
      }
      const grouped = new Set<string>();
      for (const name of names) if (!viaLinks.has(name)) grouped.add(name);
      return { names, grouped, rootSharers };
    },
    join(names) {
      for (let i = 1; i < names.length; i++) unite(names[0]!, names[i]!);
    },
    charge(chars) {
      wasted += chars;
      return wasted > total && wasted > floor;
    },
  };
}
