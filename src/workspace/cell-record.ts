/**
 * @module
 * The record of one cell as its guest saw it — every message with the reply it got, and every batch of
 * results handed to it while it was idle, in order — and the cursor that replays it. A replayed message must
 * be the one recorded at its position (same operation, same arguments by hash); anything else is a
 * divergence, described for the model in the words of `ReplayDivergence: at call 7 the cell called … but
 * the record holds …`. This is the in-memory form of the durable journal (DESIGN.md §7).
 */
import type { Delivery } from "./executor.ts";

type Entry =
  | { kind: "message"; op: string; hash: number; reply: string; what: string }
  | { kind: "deliver"; deliveries: readonly Delivery[] };

/** How a message is shown in a divergence: `op(…)` unless the host says better. */
export type MessageDescriber = (op: string, args: readonly string[]) => string;

/** `op(…)`: the plain description of a guest message. */
export const describeMessage: MessageDescriber = (op) => `${op}(…)`;

/** One cell's record and its replay cursor. */
export class CellRecord {
  readonly #entries: Entry[] = [];
  readonly #describe: MessageDescriber;
  /** Index of the next entry to replay; -1 when live. */
  #position = -1;
  #calls = 0;

  constructor(describe: MessageDescriber = describeMessage) {
    this.#describe = describe;
  }

  /** True while recorded entries remain to be replayed. */
  get replaying(): boolean {
    return this.#position >= 0;
  }

  /** Records a message answered live. */
  message(op: string, args: readonly string[], reply: string): void {
    this.#entries.push({ kind: "message", op, hash: hashMessage(op, args), reply, what: this.#describe(op, args) });
  }

  /** Records a batch of results handed to the idle guest. */
  delivered(deliveries: readonly Delivery[]): void {
    this.#entries.push({ kind: "deliver", deliveries });
  }

  /** Starts replaying from the first entry (nothing to replay when the record is empty). */
  rewind(): void {
    this.#calls = 0;
    this.#position = this.#entries.length ? 0 : -1;
  }

  #advance(): void {
    if (++this.#position >= this.#entries.length) this.#position = -1;
  }

  /** The recorded reply for this message, or why it diverges from the record. */
  replayMessage(op: string, args: readonly string[]): string | { divergence: string } {
    const entry = this.#entries[this.#position]!;
    const call = ++this.#calls;
    const asked = this.#describe(op, args);
    if (entry.kind !== "message") {
      this.#position = -1;
      return { divergence: `at call ${call} the cell called ${asked} but the record holds that it waited for results there` };
    }
    if (entry.op !== op || entry.hash !== hashMessage(op, args)) {
      this.#position = -1;
      return { divergence: `at call ${call} the cell called ${asked} but the record holds ${entry.what}` };
    }
    this.#advance();
    return entry.reply;
  }

  /** The recorded results for this idle point, or why it diverges, or `undefined` when the record is over. */
  replayIdle(): { deliver: readonly Delivery[] } | { divergence: string } | undefined {
    const entry = this.#entries[this.#position];
    if (!entry) return undefined;
    if (entry.kind !== "deliver") {
      this.#position = -1;
      return { divergence: `after call ${this.#calls} the cell waited for results but the record holds ${entry.what}` };
    }
    this.#advance();
    return { deliver: entry.deliveries };
  }
}

/** FNV-1a (32 bits) of a message's operation and arguments. */
function hashMessage(op: string, args: readonly string[]): number {
  let hash = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    hash ^= 0;
    hash = Math.imul(hash, 0x01000193);
  };
  mix(op);
  for (const arg of args) mix(arg);
  return hash >>> 0;
}
