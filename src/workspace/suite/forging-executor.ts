/**
 * @module
 * A test seam for the host's checks on guest texts (DESIGN.md §6.6). Agent code used to forge texts by
 * replacing the guest's `JSON.stringify`; the realm is now locked down (its built-ins are frozen and the
 * runtime keeps the originals), so no cell can. The host still treats every text as hostile — a bug in the
 * lockdown must not become an escape — and these tests keep that defence tested by rewriting the guest's
 * messages on their way to the host, exactly where a forged text would travel.
 */
import type { Executor, Vm } from "../executor.ts";

/** What to forge. */
export interface Forgery {
  /** Replaces the argument text of every call of a method or tool named `member` (`calendar.keep(…)`). */
  arguments?: { member: string; text: string };
  /** Replaces the stored text of variable `name` in what the guest reports at the end of a cell. */
  variable?: { name: string; text: string };
}

/** `inner`, with its VMs' messages rewritten as `forgery` says. */
export function forgingExecutor(inner: Executor, forgery: Forgery): Executor {
  return {
    name: inner.name,
    isolated: inner.isolated,
    async createVm(options) {
      const host: typeof options.host = (op, args) => {
        const forged = forgery.arguments;
        if (forged && op === "call" && args[1] === forged.member) return options.host(op, [args[0]!, args[1]!, forged.text]);
        return options.host(op, args);
      };
      const vm = await inner.createVm({ ...options, host });
      const invoke = (entry: string, ...args: string[]): string => {
        const result = vm.invoke(entry, ...args);
        const forged = forgery.variable;
        if (!forged || entry !== "collect") return result;
        const report = JSON.parse(result) as { texts: Record<string, string> };
        if (forged.name in report.texts) report.texts[forged.name] = forged.text;
        return JSON.stringify(report);
      };
      // Everything else of the VM (whatever the contract has) is the inner VM's own.
      return new Proxy(vm, {
        get(target, property) {
          if (property === "invoke") return invoke;
          const value: unknown = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }) satisfies Vm;
    },
  };
}
