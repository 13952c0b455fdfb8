/**
 * @module
 * Post-processors: checks that see a model reply before it is committed and may let it
 * through, rewrite it, add a note for the model, or veto it (the reply is not committed; the model is asked
 * again with the veto's message). They run in order; each sees the previous one's result; a veto ends the
 * chain. A post-processor that acted keeps a dialog reply from ending the turn.
 */
import type { ChatStyle } from "./chat-styles/chat-style.ts";
import type { HistoryRecord, RecordedToolCall } from "../jobs/history/history.ts";

/** A model reply not committed yet. */
export interface ReplyDraft {
  text: string;
  toolCalls: RecordedToolCall[];
}

/** What a post-processor knows about the reply and the job. */
export interface PostProcessorContext {
  job: { id: string; role: string };
  style: ChatStyle;
  /** The turn number the reply would have. */
  turn: number;
  /** Whether the draft is a final answer in the job's style (dialog: ends the turn; code styles: calls `exit`). */
  final: boolean;
  /** Actions the model took before this reply: code it ran, formal tool calls, answers to the user. */
  actions: number;
  /** How often this post-processor (by name) acted earlier in the job. */
  activations: number;
  /** The job's history before this reply. */
  history: readonly HistoryRecord[];
}

/** What a post-processor decided; leave everything out (or return nothing) to let the reply through. */
export interface PostProcessorOutcome {
  /** Replaces the reply. */
  reply?: ReplyDraft;
  /** A note shown to the model after the reply. */
  note?: string;
  /** Rejects the reply: it is not committed, and the model is asked again, seeing this message. */
  veto?: string;
}

/**
 * A post-processor.
 *
 * @example
 * ```ts
 * const noShouting: PostProcessor = {
 *   name: "noShouting",
 *   process: (draft) => draft.text === draft.text.toUpperCase() ? { veto: "Please do not shout." } : undefined,
 * };
 * ```
 */
export interface PostProcessor {
  /** Names it in history; activations are counted by name. */
  readonly name: string;
  process(draft: ReplyDraft, context: PostProcessorContext): PostProcessorOutcome | undefined | void | Promise<PostProcessorOutcome | undefined | void>;
}
