/**
 * @module
 * `FinalCheck`: a built-in post-processor that makes the model look again before a final answer given after
 * too few actions. It vetoes such a draft once per job, showing the model its draft and asking it to check
 * it against the user's request; the model then answers again (the same answer, or a better one).
 */
import type { PostProcessor, PostProcessorContext, PostProcessorOutcome, ReplyDraft } from "./post-processor.ts";

/** What the model is told when {@link FinalCheck} vetoes a draft (the draft follows). */
export const FINAL_CHECK_MESSAGE =
  "Final check: reflect on the user's latest request and your draft answer. Make sure it is correct, complete, " +
  "and directly answers the user. Revise if needed; otherwise return it unchanged.";

/** Options of {@link FinalCheck}. */
export interface FinalCheckOptions {
  /** Actions (code run, formal tool calls, answers to the user) below which a final answer is checked. @default 3 */
  minActions?: number;
  /** The name in history; two FinalChecks with different names act independently. @default "FinalCheck" */
  name?: string;
}

/**
 * Vetoes, once per job, a final answer that comes after fewer than `minActions` actions.
 *
 * @example
 * ```ts
 * new Agent({ role: "assistant", postProcessors: [new FinalCheck({ minActions: 2 })], … });
 * // or in metadata / a prompt file: POST_PROCESSORS: FinalCheck(minActions=2)
 * ```
 */
export class FinalCheck implements PostProcessor {
  readonly name: string;
  readonly minActions: number;

  constructor(options: FinalCheckOptions = {}) {
    const minActions = options.minActions ?? 3;
    if (!Number.isInteger(minActions) || minActions < 0) throw new TypeError(`FinalCheck: minActions must be a whole number ≥ 0, got ${minActions}`);
    this.minActions = minActions;
    this.name = options.name ?? "FinalCheck";
  }

  process(draft: ReplyDraft, context: PostProcessorContext): PostProcessorOutcome | undefined {
    if (!context.final || context.actions >= this.minActions || context.activations > 0) return undefined;
    return { veto: `${FINAL_CHECK_MESSAGE}\n\nDraft answer:\n${draft.text}` };
  }
}
