/**
 * The smallest OpenTelemetry context manager on `AsyncLocalStorage`, as an application's SDK setup would
 * install (the SDK's own lives in @opentelemetry/context-async-hooks): lets a test make a span active around
 * `submitJob`, as a traced HTTP handler would.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { ROOT_CONTEXT, type Context, type ContextManager } from "@opentelemetry/api";

export class AsyncContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.#storage.run(context, () => fn.call(thisArg, ...args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const run = (...args: unknown[]) => this.with(context, () => (target as (...inner: unknown[]) => unknown)(...args));
    return run as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.#storage.disable();
    return this;
  }
}
