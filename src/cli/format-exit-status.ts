/**
 * @module
 * Shows the value a job gave to `exit`. The store keeps it as workspace codec text; the CLI decodes it
 * without the application's bindings, tools or exposed classes, so values that referred to them read as
 * not persisted.
 */
import { llmRepr } from "../tools/llm-repr.ts";
import { decodeValue } from "../workspace/decode-variables.ts";
import { HostReferences } from "../workspace/membrane/host-references.ts";

/** The exit status as a JS-style value (`{booked: true}`), or the raw codec text when it cannot be decoded. */
export function formatExitStatus(text: string): string {
  try {
    return llmRepr(decodeValue(text, new HostReferences({ bindings: new Map(), tools: [] })));
  } catch {
    return `${text} (undecoded)`;
  }
}
