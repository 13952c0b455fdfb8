/**
 * @module
 * What an application registers for the model's view of its values — enum classes, formatters, class docs —
 * and the tracer STATEK's spans go to, owned by a `Statek` instance: two instances in one process never see
 * each other's. The process-wide forms (`registerEnum`, `registerFormatter`, `describeClass`, the global
 * OpenTelemetry tracer) fill {@link DEFAULT_REGISTRIES}, which every instance falls back to.
 *
 * The code that reads a registry (argument preparation, `llmRepr`, the docs) runs deep inside a step, so an
 * instance's registries are found through the step's asynchronous context ({@link withRegistries}) rather than
 * passed down every call; code outside any step reads the defaults.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Tracer } from "@opentelemetry/api";

/** Shows a value of a registered class to the model. */
export type ValueFormatter = (value: any) => string;

/** One registry level: its own registrations, then its parent's. */
export class Registries {
  readonly #parent: Registries | undefined;
  readonly #enums = new WeakMap<Function, Readonly<Record<string, unknown>>>();
  readonly #formatters = new Map<Function, ValueFormatter>();
  readonly #docs = new WeakMap<Function, object>();
  readonly #tracer: Tracer | undefined;
  #enumChanges = 0;

  constructor(options: { parent?: Registries; tracer?: Tracer } = {}) {
    this.#parent = options.parent;
    this.#tracer = options.tracer;
  }

  /** Sets the members of an enum class (already checked by the caller). */
  setEnum(cls: Function, members: Readonly<Record<string, unknown>>): void {
    this.#enums.set(cls, members);
    this.#enumChanges++;
  }

  /** The members of an enum class: this level's registration, else the parent's. */
  enumOf(cls: Function): Readonly<Record<string, unknown>> | undefined {
    return this.#enums.get(cls) ?? this.#parent?.enumOf(cls);
  }

  /** How many enum registrations this level and its parents have seen: texts made from schemas are stale once it moved. */
  get enumChanges(): number {
    return this.#enumChanges + (this.#parent?.enumChanges ?? 0);
  }

  /** Sets how instances of `cls` (and subclasses) are shown; a later one for the same class replaces it. */
  setFormatter(cls: Function, formatter: ValueFormatter): void {
    this.#formatters.set(cls, formatter);
  }

  /** The formatter for `value`: this level's first match, else the parent's. */
  formatterFor(value: object): ValueFormatter | undefined {
    for (const [cls, formatter] of this.#formatters) if (value instanceof cls) return formatter;
    return this.#parent?.formatterFor(value);
  }

  /** Sets the docs of a class or function (already checked by the caller). */
  setDocs(target: Function, docs: object): void {
    this.#docs.set(target, docs);
  }

  /** The docs of a class or function: this level's, else the parent's. */
  docsOf(target: Function): object | undefined {
    return this.#docs.get(target) ?? this.#parent?.docsOf(target);
  }

  /** The tracer of this level, else the parent's; `undefined`: the global OpenTelemetry tracer. */
  get tracer(): Tracer | undefined {
    return this.#tracer ?? this.#parent?.tracer;
  }
}

/** The process-wide registrations (`registerEnum`, `registerFormatter`, `describeClass`): every instance's fallback. */
export const DEFAULT_REGISTRIES = new Registries();

const current = new AsyncLocalStorage<Registries>();

/** The registries of the running step, or the defaults outside any. */
export function currentRegistries(): Registries {
  return current.getStore() ?? DEFAULT_REGISTRIES;
}

/** Runs `work` with `registries` as the current ones (for it and everything it starts). */
export function withRegistries<T>(registries: Registries, work: () => T): T {
  return current.run(registries, work);
}
