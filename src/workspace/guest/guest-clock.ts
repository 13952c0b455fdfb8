/**
 * @module
 * Determinism hooks: inside the sandbox, `Date.now()`, `new Date()`, `Date()` and
 * `Math.random()` come from the host, which records every value it hands out, so a replayed cell can be given
 * the same ones. Random numbers are fetched in batches to keep loops cheap; each batch is one recorded
 * crossing.
 *
 * {@link installHostClock} runs *inside* the sandbox from its source text, so it is self-contained.
 */

/** Random numbers fetched per crossing. */
export const RANDOM_BATCH = 64;

/** Replaces the guest's clock and random source with host-provided ones. Runs inside the sandbox. */
export function installHostClock(
  G: any,
  send: (op: number, ...args: string[]) => string,
  answer: (reply: string) => unknown,
  batch: number,
  ops: Record<string, number>,
): void {
  const NOW = ops.now!;
  const RANDOM = ops.random!;
  const RealDate = G.Date;
  const construct = Reflect.construct;
  const now = () => answer(send(NOW)) as number;
  const HostDate: any = function Date(this: unknown, ...args: unknown[]) {
    if (new.target === undefined) return new RealDate(now()).toString();
    return construct(RealDate, args.length === 0 ? [now()] : args, new.target);
  };
  // Existing dates, `instanceof Date` and subclasses keep working: the prototype is the real one.
  HostDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, "constructor", { value: HostDate, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(HostDate, "length", { value: 7, configurable: true });
  for (const name of ["parse", "UTC"]) {
    Object.defineProperty(HostDate, name, { value: RealDate[name], writable: true, configurable: true, enumerable: false });
  }
  Object.defineProperty(HostDate, "now", { value: function now_() { return now(); }, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(HostDate.now, "name", { value: "now" });
  Object.defineProperty(G, "Date", { value: HostDate, writable: true, configurable: true, enumerable: false });

  // Used in the order the host produced them, so a journal replays them in order.
  let pool: number[] = [];
  let next = 0;
  const random = function random() {
    if (next >= pool.length) {
      pool = answer(send(RANDOM, String(batch))) as number[];
      next = 0;
    }
    return pool[next++];
  };
  Object.defineProperty(G.Math, "random", { value: random, writable: true, configurable: true, enumerable: false });
}
