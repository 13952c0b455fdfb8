/**
 * @module
 * The synchronous half of the link between the scheduling thread and a sandbox thread: a
 * `SharedArrayBuffer` both threads read and write, with `Atomics` to wait and wake. A guest's host call is
 * synchronous for the guest — its thread writes the call, wakes the scheduling thread and blocks until the
 * reply is written — and asynchronous for the host, which answers whenever it is ready (after a durable
 * write, say). While the guest waits, the host may ask its thread to run a runtime entry (a *nested* call,
 * e.g. reading a workspace variable for argument binding).
 *
 * One message is in flight per thread at a time; the state word says whose turn it is, and every change of it is
 * one of the protocol's transitions (`CHANNEL_TRANSITIONS` in `thread-protocol.ts`), checked on both sides.
 *
 * A message is a list of strings, written as UTF-8 with each string's UTF-16 length, so the reader decodes
 * once and slices. One too large for the buffer travels on a `MessagePort` instead (read with
 * `receiveMessageOnPort`, which needs no event loop), and the length word says so.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { channelTransition, type ChannelEvent, type ChannelSide } from "./thread-protocol.ts";

/** Index of the state word. */
export const STATE = 0;
const BYTES = 1;
const COUNT = 2;
/** Index of the word naming the VM the message is about. */
export const VM_ID = 3;
/** Index of the word a call carries: how many of its leading strings are one-way messages sent ahead of it. */
export const BATCH = 5;

export { ChannelState } from "./thread-protocol.ts";

const CONTROL_WORDS = 16;
/** Offset of the guest deadline: a float64 in `performance.timeOrigin + performance.now()` time. */
const DEADLINE_OFFSET = 8 * 4;
/** Offset of the deadline of the nested entry in flight (same clock), written by the host with `nested`. */
const NESTED_DEADLINE_OFFSET = 10 * 4;
const MAX_STRINGS = 64;
const LENGTHS_OFFSET = CONTROL_WORDS * 4;
const DATA_OFFSET = LENGTHS_OFFSET + MAX_STRINGS * 4;
/** Marks a message that travels on the port. */
const ON_PORT = -1;

/** Bytes of the shared buffer: messages up to about this size are written into it. */
export const CHANNEL_BYTES = 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One side's view of a thread's shared buffer and overflow port. */
export class SharedChannel {
  readonly control: Int32Array;
  readonly #side: ChannelSide;
  readonly #deadline: Float64Array;
  readonly #nestedDeadline: Float64Array;
  readonly #lengths: Int32Array;
  readonly #data: Uint8Array;
  readonly #port: MessagePort;

  /** `side`: which end of the channel this view is (it may make only that side's transitions). */
  constructor(buffer: SharedArrayBuffer, port: MessagePort, side: ChannelSide) {
    this.control = new Int32Array(buffer, 0, CONTROL_WORDS);
    this.#side = side;
    this.#deadline = new Float64Array(buffer, DEADLINE_OFFSET, 1);
    this.#nestedDeadline = new Float64Array(buffer, NESTED_DEADLINE_OFFSET, 1);
    this.#lengths = new Int32Array(buffer, LENGTHS_OFFSET, MAX_STRINGS);
    this.#data = new Uint8Array(buffer, DATA_OFFSET);
    this.#port = port;
  }

  /** A new shared buffer for one thread. */
  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(DATA_OFFSET + CHANNEL_BYTES);
  }

  /** The current state word. */
  state(): number {
    return Atomics.load(this.control, STATE);
  }

  /** Writes `strings` about VM `vm`, then makes `event` (its state change) and wakes the other thread. */
  send(event: ChannelEvent, vm: number, strings: readonly string[]): void {
    const control = this.control;
    const state = channelTransition(Atomics.load(control, STATE), event, this.#side);
    let bytes = 0;
    let fits = strings.length <= MAX_STRINGS;
    if (fits) {
      // Every UTF-16 unit takes at most three UTF-8 bytes; only a message that might not fit is measured.
      let worst = 0;
      for (const text of strings) worst += text.length * 3;
      if (worst > this.#data.length) {
        worst = 0;
        for (const text of strings) worst += Buffer.byteLength(text, "utf8");
        fits = worst <= this.#data.length;
      }
    }
    if (fits) {
      for (let i = 0; i < strings.length; i++) {
        const text = strings[i]!;
        this.#lengths[i] = text.length;
        if (text.length) bytes += encoder.encodeInto(text, this.#data.subarray(bytes)).written;
      }
      control[BYTES] = bytes;
    } else {
      this.#port.postMessage(strings);
      control[BYTES] = ON_PORT;
    }
    control[COUNT] = strings.length;
    control[VM_ID] = vm;
    Atomics.store(control, STATE, state);
    Atomics.notify(control, STATE);
  }

  /** Reads the strings of the message now in the buffer. */
  read(): string[] {
    const control = this.control;
    const count = control[COUNT]!;
    const bytes = control[BYTES]!;
    if (bytes === ON_PORT) {
      const received = receiveMessageOnPort(this.#port);
      return received ? (received.message as string[]) : [];
    }
    // TextDecoder does not read shared memory: copy the bytes out first.
    const text = bytes ? decoder.decode(this.#data.slice(0, bytes)) : "";
    const strings = new Array<string>(count);
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const length = this.#lengths[i]!;
      strings[i] = length ? text.slice(offset, offset + length) : "";
      offset += length;
    }
    return strings;
  }

  /**
   * Publishes when the guest code running on the sandbox thread must have stopped (absolute time, comparable
   * across threads), or `Infinity` while no guest code runs. The watchdog reads it.
   */
  publishDeadline(absoluteMs: number): void {
    this.#deadline[0] = absoluteMs;
  }

  /** The deadline the sandbox thread published last. */
  deadline(): number {
    return this.#deadline[0]!;
  }

  /** The current time in the clock deadlines are published in. */
  static now(): number {
    return performance.timeOrigin + performance.now();
  }

  /** The VM the current message is about. */
  vm(): number {
    return this.control[VM_ID]!;
  }

  /** Makes `event` without a message (the sandbox's acknowledgement of a reply, the host's resuming of a call). */
  signal(event: ChannelEvent): void {
    Atomics.store(this.control, STATE, channelTransition(Atomics.load(this.control, STATE), event, this.#side));
    Atomics.notify(this.control, STATE);
  }

  /** The host, with a `nested` message: the nested entry must be over by `absoluteMs` (same clock as deadlines). */
  setNestedDeadline(absoluteMs: number): void {
    this.#nestedDeadline[0] = absoluteMs;
  }

  /** When the nested entry in flight must be over. */
  nestedDeadline(): number {
    return this.#nestedDeadline[0]!;
  }

  /** Blocks this thread until the state is no longer `current` (or `timeoutMs` passed); returns the state. */
  waitWhile(current: number, timeoutMs = Infinity): number {
    const control = this.control;
    const deadline = timeoutMs === Infinity ? Infinity : performance.now() + timeoutMs;
    let state = Atomics.load(control, STATE);
    while (state === current) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(control, STATE, current, left === Infinity ? undefined : left);
      state = Atomics.load(control, STATE);
    }
    return state;
  }
}

/**
 * How long one side of the channel looks for the other's next message before it sleeps on the futex. A
 * guest in a loop calls again within microseconds and the host answers most calls within a few, so a short
 * look saves two thread wake-ups per crossing (tens of microseconds). On a busy machine the other side may not
 * be running at all and looking only burns a core: after many looks in a row that found nothing, looking
 * stops for a while, with one look now and then to notice when it would pay again.
 */
export class AdaptiveSpin {
  static readonly LOOK_MS = 0.1;
  static readonly MISSES_BEFORE_PAUSE = 16;
  static readonly PAUSE = 256;
  #misses = 0;
  #paused = 0;

  /** Looks until `arrived()` or the look is over; true when it arrived while looking. */
  look(arrived: () => boolean): boolean {
    if (this.#paused > 0) {
      this.#paused--;
      return arrived();
    }
    const until = performance.now() + AdaptiveSpin.LOOK_MS;
    do {
      if (arrived()) {
        this.#misses = 0;
        return true;
      }
    } while (performance.now() < until);
    if (++this.#misses >= AdaptiveSpin.MISSES_BEFORE_PAUSE) {
      this.#misses = 0;
      this.#paused = AdaptiveSpin.PAUSE;
    }
    return false;
  }
}
