/**
 * @module
 * A test seam for the host's checks on guest texts. The realm is locked down (its built-ins are frozen and the
 * runtime keeps the originals), so no cell can forge a text by replacing the guest's `JSON.stringify`. The
 * host still treats every text as hostile — a bug in the
 * lockdown must not become an escape — and these tests keep that defence tested by rewriting the guest's
 * messages on their way to the host, exactly where a forged text would travel.
 */
import { readCollectReport, writeCollectReport } from "../collect-report.ts";
import type { Executor, Vm, VmHost } from "../executor.ts";

/** What to forge. */
export interface Forgery {
  /** Replaces the argument text of every call of a method or tool named `member` (`calendar.keep(…)`). */
  arguments?: { member: string; text: string };
  /** Replaces the value text of every write of property `member` (`calendar.owner = …`). */
  write?: { member: string; text: string };
  /** Replaces the status text of `exit(…)`. */
  exit?: { text: string };
  /** Replaces the stored text of variable `name` in what the guest reports at the end of a cell. */
  variable?: { name: string; text: string };
  /** Rewrites the whole report of the guest's collect at the end of a cell (after `variable`). */
  report?: (text: string) => string;
  /** Replaces every message of operation `op` with `to` (another operation, other arguments). */
  message?: { op: string; to: (args: readonly string[]) => { op: string; args: string[] } };
}

/** `inner`, with its VMs' messages rewritten as `forgery` says. */
export function forgingExecutor(inner: Executor, forgery: Forgery): Executor {
  let exited = false;
  return {
    name: inner.name,
    isolated: inner.isolated,
    async createVm(options) {
      const host: VmHost = {
        receive(op, args) {
          if (forgery.message && op === forgery.message.op) {
            const to = forgery.message.to(args);
            return options.host.receive(to.op, to.args);
          }
          const forged = forgery.arguments;
          if (forged && op === "call" && args[1] === forged.member) return options.host.receive(op, [args[0]!, args[1]!, forged.text]);
          if (forgery.write && op === "set" && args[1] === forgery.write.member) return options.host.receive(op, [args[0]!, args[1]!, forgery.write.text]);
          // Only the first exit: a job's later `exit` (its way out of a test) is its own.
          if (forgery.exit && op === "exit" && !exited) {
            exited = true;
            return options.host.receive(op, [forgery.exit.text]);
          }
          return options.host.receive(op, args);
        },
        idle: (state) => options.host.idle(state),
      };
      const vm = await inner.createVm({ ...options, host });
      const forgeCollected = (text: string): string => {
        const forged = forgery.variable;
        let report = text;
        if (forged) {
          const read = readCollectReport(text);
          if (forged.name in read.texts) read.texts[forged.name] = forged.text;
          report = writeCollectReport(read);
        }
        return forgery.report ? forgery.report(report) : report;
      };
      const runCell: Vm["runCell"] = async (script, cellOptions) => {
        const outcome = await vm.runCell(script, cellOptions);
        if (cellOptions.after?.entry === "collect" && outcome.after && "text" in outcome.after) {
          return { ...outcome, after: { text: forgeCollected(outcome.after.text) } };
        }
        return outcome;
      };
      // Everything else of the VM (whatever the contract has) is the inner VM's own.
      return new Proxy(vm, {
        get(target, property) {
          if (property === "runCell") return runCell;
          const value: unknown = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }) satisfies Vm;
    },
  };
}
