/**
 * @module
 * The durable waits of agent code: `sleep(ms)`, `until(date)`, `waitForMessage()`, and
 * `getAny`/`getAll` over them. Each wait is a host result the host settles when the time comes or the
 * message arrives; a cell that waits only for such results is *suspended* (its VM freed, the job kept as
 * rows) and resumed later by replaying it up to the wait, which then yields. Short sleeps stay in memory.
 *
 * {@link installGuestWaits} runs *inside* the sandbox from its source text, so it is self-contained.
 */

/** Installs the durable waits. Runs inside the sandbox. */
export function installGuestWaits(
  G: any,
  send: (op: number, ...args: string[]) => string,
  answer: (reply: string) => unknown,
  ops: Record<string, number>,
): { childHandle(info: any): unknown } {
  const FUTURE = ops.future!;
  const wait = (kind: string, data: unknown) => answer(send(FUTURE, kind, JSON.stringify(data)));
  const define = (name: string, value: Function) =>
    Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  const sleep = function sleep(ms: unknown) {
    // A wait that never ends, or one that is no number, is a mistake to show now, never a wait that ends at once.
    if (typeof ms !== "number" || !Number.isFinite(ms)) {
      throw new TypeError(`sleep(ms): expected a finite number of milliseconds, got ${typeof ms === "number" ? String(ms) : ms === null ? "null" : typeof ms}`);
    }
    return wait("timer", { ms: Math.max(0, Math.min(ms, 8_640_000_000_000)) });
  };
  define("sleep", sleep);
  define("until", function until(date: unknown) {
    const at = date instanceof Date ? date.getTime() : typeof date === "string" || typeof date === "number" ? new Date(date as string).getTime() : NaN;
    if (!Number.isFinite(at)) throw new TypeError("until(date): expected a Date, an ISO date string or epoch milliseconds");
    return sleep(Math.max(0, at - Date.now()));
  });
  define("waitForMessage", function waitForMessage() {
    return wait("message", {});
  });
  define("requestApproval", function requestApproval(summary: unknown) {
    if (typeof summary !== "string" || !summary.trim()) throw new TypeError("requestApproval(summary): expected a sentence saying what to approve");
    return wait("approval", { summary });
  });
  const list = (name: string, values: unknown) => {
    if (values === null || typeof values !== "object" || typeof (values as any)[Symbol.iterator] !== "function") {
      throw new TypeError(`${name}(list): expected a list of promises (waits, tool calls)`);
    }
    const items = Array.from(values as Iterable<unknown>);
    if (!items.length) throw new TypeError(`${name}(list): the list is empty`);
    return items;
  };
  define("getAny", function getAny(values: unknown) {
    return Promise.race(list("getAny", values));
  });
  define("getAll", function getAll(values: unknown) {
    return Promise.all(list("getAll", values));
  });
  // A child job's handle: its id, role and state as data (what printing it shows), awaitable (a durable wait
  // for its end: the exit value, or ChildJobFailed). The wait starts at the first await.
  const childHandle = (info: any) => {
    const key = String(info?.id);
    const handle: any = { jobId: key, role: String(info?.role), state: String(info?.state ?? "WAITING") };
    let ended: Promise<unknown> | undefined;
    Object.defineProperty(handle, "then", {
      enumerable: false,
      value: function then(onFulfilled?: (value: unknown) => unknown, onRejected?: (error: unknown) => unknown) {
        ended ??= (wait("child", { key }) as Promise<unknown>).then(
          (value) => {
            handle.state = "COMPLETED";
            return value;
          },
          (error) => {
            handle.state = "ERROR";
            throw error;
          },
        );
        return ended.then(onFulfilled, onRejected);
      },
    });
    return handle;
  };
  return { childHandle };
}
