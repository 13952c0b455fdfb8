/**
 * @module
 * The declarations of what every workspace has besides the ECMAScript built-ins (`lib.esnext`): the globals
 * the guest runtime adds (`print`, `exit`, `console`, timers, text encoding, `URL`, …) and the durable waits
 * (`sleep`, `until`, `waitForMessage`, `requestApproval`, `getAny`, `getAll`) and sub-tasks (`findTask`,
 * `completeTask`, `failTask`). The names are the ones
 * `workspace/workspace-notes.ts` lists, which the workspace suite holds every executor to; a test holds this
 * text to the same list.
 */

/** TypeScript declarations of the workspace's own globals. */
export const CELL_GLOBALS = `
/** Prints values to the console, separated by spaces (objects shown compactly). */
declare function print(...values: any[]): void;
/** Ends the job with a result (any value the workspace can store); nothing after it runs. */
declare function exit(result?: any): never;
declare const console: {
  log(...values: any[]): void;
  info(...values: any[]): void;
  debug(...values: any[]): void;
  warn(...values: any[]): void;
  error(...values: any[]): void;
};
/** Waits \`ms\` milliseconds; a longer wait suspends the job, which resumes here. */
declare function sleep(ms: number): Promise<void>;
/** Waits until a time (a Date, an ISO date string or epoch milliseconds). */
declare function until(date: Date | string | number): Promise<void>;
/** The next message pushed to the job (a string stays a string). */
declare function waitForMessage(): Promise<any>;
/** Asks a human to approve; resolves to their note, throws ApprovalDenied when denied. */
declare function requestApproval(summary: string): Promise<string | undefined>;
/** The first of several waits or calls to settle. */
declare function getAny<T extends readonly unknown[] | []>(values: T): Promise<Awaited<T[number]>>;
declare function getAny<T>(values: Iterable<T | PromiseLike<T>>): Promise<Awaited<T>>;
/** All of several waits or calls, in order. */
declare function getAll<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }>;
declare function getAll<T>(values: Iterable<T | PromiseLike<T>>): Promise<Awaited<T>[]>;
/** A sub-task's handle: its id, its agent's role and its state, read live; awaiting it gives its exit value. */
interface TaskHandle extends PromiseLike<any> {
  readonly id: string;
  readonly role: string;
  readonly state: "WAITING" | "STARTED" | "COMPLETED" | "ERROR";
}
/** The handle of this job's sub-task with that id (refused when it is not one of its children). */
declare function findTask(id: string): TaskHandle;
/** The handle of this job's latest sub-task, or null when it has none. */
declare function findTask(): TaskHandle | null;
/** Ends this sub-task DONE with a result (any value the workspace can store); nothing after it runs. */
declare function completeTask(result?: any): never;
/** Ends this sub-task FAILED with a reason; the parent's await throws ChildJobFailed. */
declare function failTask(reason: string): never;
declare function structuredClone<T = any>(value: T, options?: { transfer?: any[] }): T;
declare function queueMicrotask(callback: () => void): void;
declare const performance: { now(): number };
declare function setTimeout(callback: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function setInterval(callback: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function clearTimeout(id?: number): void;
declare function clearInterval(id?: number): void;
declare function atob(data: string): string;
declare function btoa(data: string): string;
interface ErrorConstructor {
  /** Sets \`target.stack\` to the stack at this call, leaving out frames from \`constructorOpt\` up. */
  captureStackTrace(target: object, constructorOpt?: Function): void;
  stackTraceLimit: number;
}

declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | Iterable<readonly [string, string]> | URLSearchParams);
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  toString(): string;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: any): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string | URL, base?: string | URL): boolean;
  static parse(url: string | URL, base?: string | URL): URL | null;
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
}
declare class TextEncoder {
  readonly encoding: "utf-8";
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
declare class DOMException extends Error {
  constructor(message?: string, name?: string);
  readonly code: number;
}
`;

/** The names {@link CELL_GLOBALS} declares. */
export const CELL_GLOBAL_NAMES: readonly string[] = Object.freeze([
  ...new Set([...CELL_GLOBALS.matchAll(/^declare (?:function|const|class) ([A-Za-z_$][\w$]*)/gm)].map((match) => match[1]!)),
]);
