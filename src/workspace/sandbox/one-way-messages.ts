/**
 * @module
 * Guest messages whose answer the guest does not wait for: `print` (console output, echoes) and the engines'
 * `begin`. The host answers them with nothing (a print that fails shows as an error line on the console), so
 * a sandbox thread keeps them and sends them ahead of the VM's next call, or with the result of the command
 * that made them — a cell that only prints costs no crossing. Their order with the other messages is kept:
 * the host handles them before whatever comes with them.
 *
 * A batch travels as strings: for each message, the count of its strings, its operation, its arguments.
 */
import { CODE_START_OP } from "../guest/guest-protocol.ts";

/** Operations that are one-way. */
const ONE_WAY_OPS = new Set(["print", CODE_START_OP]);

/** Characters kept per VM before a message is sent at once (a chatty cell still crosses now and then). */
export const ONE_WAY_MAX_CHARACTERS = 64 * 1024;

/** The one-way messages kept per VM on a sandbox thread. */
export class OneWayMessages {
  readonly #kept = new Map<number, { strings: string[]; characters: number }>();

  /** Keeps the message if it is one-way and there is room; false when it must be sent as a call. */
  keep(vm: number, op: string, args: readonly string[]): boolean {
    if (!ONE_WAY_OPS.has(op)) return false;
    let size = op.length;
    for (const arg of args) size += arg.length;
    let kept = this.#kept.get(vm);
    if (kept && kept.characters + size > ONE_WAY_MAX_CHARACTERS) return false;
    if (!kept) this.#kept.set(vm, (kept = { strings: [], characters: 0 }));
    kept.strings.push(String(args.length + 1), op, ...args);
    kept.characters += size;
    return true;
  }

  /** The kept messages of `vm`, as a batch, and forgets them. */
  take(vm: number): string[] {
    const kept = this.#kept.get(vm);
    if (!kept) return [];
    this.#kept.delete(vm);
    return kept.strings;
  }
}

/** The messages of a batch, in order. */
export function* batchMessages(strings: readonly string[], count = strings.length): Generator<{ op: string; args: string[] }> {
  let index = 0;
  while (index < count) {
    const size = Number(strings[index]);
    if (!(size >= 1) || index + 1 + size > count) return;
    yield { op: strings[index + 1]!, args: strings.slice(index + 2, index + 1 + size) };
    index += 1 + size;
  }
}
