/**
 * @module
 * The journal of one cell: an append-only list of items that says what the guest was
 * answered, message by message (`seq`, counted from 0 in issue order), and which host results it was handed
 * at each idle point. A side-effecting crossing writes an `intent` before it runs and a `done` item after;
 * every other message one `msg` item; an asynchronous result a `settle` item when it arrives and a `deliver`
 * item when it is handed over. The items also carry what each crossing left in the step's record (console
 * lines, tool-call records, error handlers), so a replay that does not run the crossing again can still
 * give the step its full record.
 *
 * Replaying folds the items into a cursor: a message must be the one recorded at its `seq` (same operation,
 * same arguments by hash), or the cell ends with `ReplayDivergence`; an `intent` without its `done` is *in
 * doubt*. The items are plain JSON: the durable journal stores them as they are, and they are decoded and
 * checked when read back ({@link decodeJournalItem}), never cast.
 */
import type { Delivery } from "./executor.ts";

/** How a crossing is journaled: `local` (no effect outside the step), `read` (no side effect), `effect`. */
export type CrossingKind = "local" | "read" | "effect";

/** What one crossing left in the step's record, to give the step again when the crossing is replayed. */
export interface CrossingEffects {
  console?: Array<{ stream: string; text: string }>;
  toolCalls?: unknown[];
  errorHandlers?: Array<{ name: string; context: string }>;
  /** Changes a framework tool asked of the job (`tools/job-request.ts`), decoded again when applied. */
  job?: unknown[];
}

/** One journal item. */
export type JournalItem =
  | { t: "msg"; seq: number; op: string; h: number; w: string; r: string; fx?: CrossingEffects }
  | { t: "intent"; seq: number; op: string; h: number; w: string }
  | { t: "done"; seq: number; r: string; fx?: CrossingEffects }
  | { t: "settle"; id: number; r: string; fx?: CrossingEffects }
  | { t: "deliver"; ids: number[] };

/** A message as the journal holds it, folded from its items. */
export interface JournaledMessage {
  op: string;
  hash: number;
  what: string;
  /** The reply; absent for an intent whose crossing never finished (in doubt). */
  reply?: string;
  effects: CrossingEffects[];
  /** Position of the item that holds the reply (or the intent), for "already committed" checks. */
  position: number;
}

/** How a message is shown in a divergence: `op(…)` unless the host says better. */
export type MessageDescriber = (op: string, args: readonly string[]) => string;

/** `op(…)`: the plain description of a guest message. */
export const describeMessage: MessageDescriber = (op) => `${op}(…)`;

/** FNV-1a (32 bits) of a message's operation and arguments. */
export function hashMessage(op: string, args: readonly string[]): number {
  let hash = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    hash = Math.imul(hash ^ 0xff, 0x01000193);
  };
  mix(op);
  for (const arg of args) mix(arg);
  return hash >>> 0;
}

/** A pending result's settlements as the journal holds them. */
export interface ReplayedSettlement {
  /** The last reply. */
  reply: string;
  /** The effects of every settlement, each with its item's position. */
  effects: Array<{ fx: CrossingEffects; position: number }>;
  position: number;
  /** The host-made wait the result first settled to (`f…`), when it was one. */
  wait?: string;
}

/** A journal's items folded for replay: messages by `seq`, settled results by id, deliveries in order. */
export class JournalReplay {
  readonly messages: JournaledMessage[] = [];
  /**
   * Settled results by id: the last reply (a durable future's result settles its id again) and the effects of
   * every settlement, each with its item's position (for "already committed" checks).
   */
  readonly settles = new Map<number, ReplayedSettlement>();
  readonly deliveries: Array<{ ids: number[]; position: number }> = [];
  #nextMessage = 0;
  #nextDelivery = 0;

  constructor(items: readonly JournalItem[]) {
    items.forEach((item, position) => {
      switch (item.t) {
        case "msg":
          this.messages[item.seq] = { op: item.op, hash: item.h, what: item.w, reply: item.r, effects: item.fx ? [item.fx] : [], position };
          break;
        case "intent":
          this.messages[item.seq] = { op: item.op, hash: item.h, what: item.w, effects: [], position };
          break;
        case "done": {
          const message = this.messages[item.seq];
          if (message) {
            message.reply = item.r;
            message.position = position;
            if (item.fx) message.effects.push(item.fx);
          }
          break;
        }
        case "settle": {
          const earlier = this.settles.get(item.id);
          const effects = earlier?.effects ?? [];
          if (item.fx) effects.push({ fx: item.fx, position });
          // A host-made wait (`f…`: an approval request, a child) is settled again by its outcome; the wait is kept.
          const wait = earlier?.wait ?? (item.r.charCodeAt(0) === 102 /* f */ ? item.r : undefined);
          this.settles.set(item.id, { reply: item.r, effects, position, ...(wait === undefined ? {} : { wait }) });
          break;
        }
        case "deliver":
          this.deliveries.push({ ids: item.ids, position });
          break;
      }
    });
  }

  /** True while recorded messages or deliveries remain. */
  get replaying(): boolean {
    return this.#nextMessage < this.messages.length || this.#nextDelivery < this.deliveries.length;
  }

  /** The number of messages replayed so far (the next message's `seq`). */
  get position(): number {
    return this.#nextMessage;
  }

  /** The recorded message for the next `seq` if there is one (the cursor moves past it), else `undefined`. */
  nextMessage(): JournaledMessage | undefined {
    if (this.#nextMessage >= this.messages.length) return undefined;
    return this.messages[this.#nextMessage++];
  }

  /** The recorded results for this idle point, or `undefined` when the journal holds no more. */
  nextDelivery(): Delivery[] | undefined {
    const delivery = this.deliveries[this.#nextDelivery];
    if (!delivery) return undefined;
    this.#nextDelivery++;
    return delivery.ids.map((id) => ({ id, reply: this.settles.get(id)?.reply ?? "" }));
  }

  /** Ids delivered by the journal (all of them, replayed or not). */
  deliveredIds(): Set<number> {
    const ids = new Set<number>();
    for (const delivery of this.deliveries) for (const id of delivery.ids) ids.add(id);
    return ids;
  }

  /** Stops replaying (a divergence): everything after is live. */
  stop(): void {
    this.#nextMessage = this.messages.length;
    this.#nextDelivery = this.deliveries.length;
  }
}

/** A JSON value (what a store keeps). */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `item` as the store keeps it, tagged with the part of the step it belongs to (`""`: untagged). */
export function encodeJournalItem(item: JournalItem, part: string): Json {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(item)) {
    if (value === undefined) continue;
    // Items are built here from strings, numbers and the effects' records, all JSON by construction.
    out[key] = key === "fx" ? encodeEffects(value as CrossingEffects) : (value as Json);
  }
  if (part) out.p = part;
  return out;
}

function encodeEffects(fx: CrossingEffects): Json {
  const out: { [key: string]: Json } = {};
  if (fx.console) out.console = fx.console.map((entry) => ({ stream: entry.stream, text: entry.text }));
  if (fx.toolCalls) out.toolCalls = JSON.parse(JSON.stringify(fx.toolCalls)) as Json[];
  if (fx.errorHandlers) out.errorHandlers = fx.errorHandlers.map((handler) => ({ name: handler.name, context: handler.context }));
  if (fx.job) out.job = JSON.parse(JSON.stringify(fx.job)) as Json[];
  return out;
}

/** The journal item `value` is, or why it is not one. */
export function decodeJournalItem(value: unknown): JournalItem {
  const fail = (why: string): never => {
    throw new TypeError(`malformed journal item: ${why}`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("not an object");
  const item = value as Record<string, unknown>;
  const integer = (key: string) => (Number.isSafeInteger(item[key]) && (item[key] as number) >= 0 ? (item[key] as number) : fail(`${key} is not a count`));
  const text = (key: string) => (typeof item[key] === "string" ? (item[key] as string) : fail(`${key} is not a string`));
  const effects = (): CrossingEffects | undefined => (item.fx === undefined ? undefined : decodeEffects(item.fx, fail));
  switch (item.t) {
    case "msg": {
      const fx = effects();
      return { t: "msg", seq: integer("seq"), op: text("op"), h: integer("h"), w: text("w"), r: text("r"), ...(fx ? { fx } : {}) };
    }
    case "intent":
      return { t: "intent", seq: integer("seq"), op: text("op"), h: integer("h"), w: text("w") };
    case "done": {
      const fx = effects();
      return { t: "done", seq: integer("seq"), r: text("r"), ...(fx ? { fx } : {}) };
    }
    case "settle": {
      const fx = effects();
      return { t: "settle", id: integer("id"), r: text("r"), ...(fx ? { fx } : {}) };
    }
    case "deliver": {
      const ids = item.ids;
      if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id))) return fail("ids is not a list of ids");
      return { t: "deliver", ids: ids as number[] };
    }
  }
  return fail(`unknown kind ${JSON.stringify(item.t)}`);
}

function decodeEffects(value: unknown, fail: (why: string) => never): CrossingEffects {
  if (typeof value !== "object" || value === null) return fail("fx is not an object");
  const fx = value as Record<string, unknown>;
  const out: CrossingEffects = {};
  if (fx.console !== undefined) {
    if (!Array.isArray(fx.console) || !fx.console.every((entry) => typeof entry?.stream === "string" && typeof entry?.text === "string")) return fail("fx.console");
    out.console = fx.console as CrossingEffects["console"];
  }
  if (fx.toolCalls !== undefined) {
    if (!Array.isArray(fx.toolCalls)) return fail("fx.toolCalls");
    out.toolCalls = fx.toolCalls;
  }
  if (fx.errorHandlers !== undefined) {
    if (!Array.isArray(fx.errorHandlers) || !fx.errorHandlers.every((entry) => typeof entry?.name === "string" && typeof entry?.context === "string")) {
      return fail("fx.errorHandlers");
    }
    out.errorHandlers = fx.errorHandlers as CrossingEffects["errorHandlers"];
  }
  if (fx.job !== undefined) {
    if (!Array.isArray(fx.job)) return fail("fx.job");
    out.job = fx.job;
  }
  return out;
}
