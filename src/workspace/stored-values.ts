/**
 * @module
 * Host-side stand-ins for workspace values that have no host equivalent, as they appear in a job view's
 * `variables`: a function or class the workspace keeps as source, and a tombstone for a value that could not
 * be kept.
 */
import { llmRepr } from "../tools/llm-repr.ts";

/** A function or class declared by agent code, kept as its source text. */
export class StoredDefinition {
  readonly name: string;
  readonly source: string;
  constructor(source: string, name: string) {
    this.source = source;
    this.name = name;
  }
  [llmRepr.symbol](): string {
    // The source may start with a marker comment of the guest runtime (`/*#private*/class …`).
    return /^(\/\*[^*]*\*\/)?class\b/.test(this.source) ? `[class ${this.name}]` : `[Function ${this.name || "(anonymous)"}]`;
  }
}

/** A value that could not be kept, with the reason the model is told. */
export class Tombstone {
  readonly reason: string;
  /** Where the value was (`f`, `config.onChange`). */
  readonly path: string;
  constructor(reason: string, path: string) {
    this.reason = reason;
    this.path = path;
  }
  [llmRepr.symbol](): string {
    return `[not persisted: ${this.reason}]`;
  }
}
