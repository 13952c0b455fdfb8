/**
 * @module
 * The durable waits of agent code: `sleep(ms)`, `until(date)`, `waitForMessage()`, and
 * `getAny`/`getAll` over them; and sub-tasks: a child job's handle, `findTask(id?)` in the parent,
 * `completeTask(result)` / `failTask(reason)` in the child. Each wait is a host result the host settles when
 * the time comes or the message arrives; a cell that waits only for such results is *suspended* (its VM freed,
 * the job kept as rows) and resumed later by replaying it up to the wait, which then yields. Short sleeps stay
 * in memory.
 *
 * {@link installGuestWaits} runs *inside* the sandbox from its source text, so it is self-contained.
 */

/** Installs the durable waits. Runs inside the sandbox. */
export function installGuestWaits(
  G: any,
  send: (op: number, ...args: string[]) => string,
  answer: (reply: string) => unknown,
  ops: Record<string, number>,
  exitWith: (status: unknown, failure: string | undefined) => never,
): { childHandle(info: any): unknown; taskKeyOf(value: object): string | undefined; fromTaskKey(key: unknown): unknown } {
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
  const TASK = ops.task!;
  // Sub-task handles this VM made, with what they stand for (a handle persists as the key `task:<id>:<role>`).
  const handles = new WeakMap<object, { id: string; role: string }>();
  // A child job's handle: its id and role as data (what printing it shows), its `state` read from the child's
  // status each time it is read (a crossing the journal keeps), awaitable (a durable wait for its end: the exit
  // value, or ChildJobFailed). The wait starts at the first await.
  const childHandle = (info: any) => {
    const id = String(info?.id);
    const role = String(info?.role);
    const handle: any = { id, role };
    let ended: Promise<unknown> | undefined;
    Object.defineProperty(handle, "state", {
      enumerable: false,
      get: function state() {
        return answer(send(TASK, "state", id));
      },
    });
    Object.defineProperty(handle, "then", {
      enumerable: false,
      value: function then(onFulfilled?: (value: unknown) => unknown, onRejected?: (error: unknown) => unknown) {
        ended ??= wait("child", { key: id }) as Promise<unknown>;
        return ended.then(onFulfilled, onRejected);
      },
    });
    handles.set(handle, { id, role });
    return Object.freeze(handle);
  };
  define("findTask", function findTask(id?: unknown) {
    if (id !== undefined && id !== null && typeof id !== "string") throw new TypeError("findTask(id?): expected a sub-task's id (a string), or nothing for the latest");
    return answer(send(TASK, "find", typeof id === "string" ? id : ""));
  });
  define("completeTask", function completeTask(result?: unknown) {
    answer(send(TASK, "complete"));
    return exitWith(result, undefined);
  });
  define("failTask", function failTask(reason: unknown) {
    const text = reason instanceof Error ? String(reason.message) : typeof reason === "string" ? reason : "";
    if (!text.trim()) throw new TypeError("failTask(reason): expected a sentence saying why the sub-task failed");
    answer(send(TASK, "fail"));
    return exitWith(undefined, text.length > 10_000 ? text.slice(0, 10_000) + "…" : text);
  });
  const PREFIX = "task:";
  /** The persisted key of a sub-task handle, or `undefined` for any other value. */
  const taskKeyOf = (value: object) => {
    const known = handles.get(value);
    return known ? PREFIX + known.id + ":" + known.role : undefined;
  };
  /** The handle a persisted key stands for, or `undefined` for a key that is not a sub-task's. */
  const fromTaskKey = (key: unknown) => {
    if (typeof key !== "string" || !key.startsWith(PREFIX)) return undefined;
    const rest = key.slice(PREFIX.length);
    const colon = rest.indexOf(":");
    return colon < 0 ? undefined : childHandle({ id: rest.slice(0, colon), role: rest.slice(colon + 1) });
  };
  return { childHandle, taskKeyOf, fromTaskKey };
}
