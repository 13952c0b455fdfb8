/**
 * @module
 * `setTimeout`, `setInterval`, `clearTimeout` and `clearInterval` inside the sandbox. A timer is a pending
 * host result (`timer(ms, kind)`) the host settles when the time has come, so the host decides when its
 * callback runs — in the order results arrive, or, on replay, in the order a journal recorded. Callbacks run
 * inside the cell that set them: a pending `setTimeout` keeps the cell going after its code finished (as a
 * script does), an interval alone does not, and a callback that throws ends the cell with its error.
 *
 * {@link installGuestTimers} runs *inside* the sandbox from its source text, so it is self-contained.
 */

/**
 * Installs the timer globals; returns the function that starts a new cell's numbering of timer handles (so a
 * warm VM numbers them as a new one does). Runs inside the sandbox.
 */
export function installGuestTimers(
  G: any,
  send: (op: number, ...args: string[]) => string,
  answer: (reply: string) => unknown,
  ops: Record<string, number>,
  reportEnd: (error: unknown) => void,
): () => void {
  const TIMER = ops.timer!;
  const CLEAR = ops.clearTimer!;
  // Timer handle → the pending id of its current timer (an interval gets a new one each round).
  const live = new Map<number, number>();
  let nextHandle = 1;
  const delayOf = (ms: unknown) => {
    const value = Number(ms);
    return value >= 1 ? Math.floor(value) : 1;
  };
  const checkCallback = (callback: unknown, name: string) => {
    if (typeof callback !== "function") throw new TypeError(`${name}: the callback must be a function, got ${callback === null ? "null" : typeof callback}`);
  };
  // Starts one host timer for `handle`; `onFire` runs when it fires unless the handle was cleared.
  const arm = (handle: number, ms: number, kind: string, onFire: () => void) => {
    const reply = send(TIMER, String(ms), kind);
    const id = +reply.slice(1);
    live.set(handle, id);
    void (answer(reply) as Promise<unknown>).then(() => {
      if (live.get(handle) !== id) return;
      try {
        onFire();
      } catch (error) {
        live.delete(handle);
        reportEnd(error);
      }
    });
  };
  const define = (name: string, value: Function) =>
    Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });

  define("setTimeout", function setTimeout(callback: Function, ms?: number, ...args: unknown[]) {
    checkCallback(callback, "setTimeout");
    const handle = nextHandle++;
    arm(handle, delayOf(ms), "timeout", () => {
      live.delete(handle);
      callback(...args);
    });
    return handle;
  });
  define("setInterval", function setInterval(callback: Function, ms?: number, ...args: unknown[]) {
    checkCallback(callback, "setInterval");
    const handle = nextHandle++;
    const delay = delayOf(ms);
    const round = () => {
      arm(handle, delay, "interval", () => {
        round();
        callback(...args);
      });
    };
    round();
    return handle;
  });
  const clear = function clear(handle: unknown) {
    const id = live.get(Number(handle));
    if (id === undefined) return;
    live.delete(Number(handle));
    send(CLEAR, String(id));
  };
  define("clearTimeout", function clearTimeout(handle: unknown) {
    clear(handle);
  });
  define("clearInterval", function clearInterval(handle: unknown) {
    clear(handle);
  });
  return () => {
    live.clear();
    nextHandle = 1;
  };
}
