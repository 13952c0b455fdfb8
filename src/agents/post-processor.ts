/**
 * @module
 * Post-processors (DESIGN.md §8.4): checks that see a model reply before it is committed and may let it
 * through, rewrite it, add a note for the model, or veto it (the reply is not committed; the model is asked
 * again with the veto's message). They run in order; each sees the previous one's result; a veto ends the
 * chain. A post-processor that acted keeps a dialog reply from ending the turn.
 */
import type { ChatStyle } from "../jobs/chat-styles/chat-style.ts";
import type { HistoryRecord, PostProcessedRecord, RecordedToolCall } from "../jobs/history/history.ts";

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

/** The result of running the post-processors over a draft. */
export interface PostProcessing {
  /** The reply to commit, or `null` when it was vetoed. */
  draft: ReplyDraft | null;
  /** What each acting post-processor did, for history. */
  records: PostProcessedRecord[];
  /** Whether any post-processor acted. */
  activated: boolean;
}

/**
 * Runs `processors` over `draft`. `finalOf` says whether a draft is final in the job's style (it is asked
 * again after a rewrite).
 *
 * @throws {TypeError} When a post-processor returns something that is not an outcome, or both a veto and a reply.
 */
export async function applyPostProcessors(
  processors: readonly PostProcessor[],
  draft: ReplyDraft,
  context: Omit<PostProcessorContext, "final" | "activations">,
  finalOf: (draft: ReplyDraft) => boolean,
): Promise<PostProcessing> {
  const records: PostProcessedRecord[] = [];
  let current = draft;
  for (const processor of processors) {
    const activations = context.history.filter((record) => record.kind === "post-processed" && record.data.processor === processor.name).length +
      records.filter((record) => record.processor === processor.name).length;
    const outcome = await processor.process(current, { ...context, final: finalOf(current), activations });
    if (outcome === undefined || outcome === null) continue;
    const label = `post-processor '${processor.name}'`;
    if (typeof outcome !== "object") throw new TypeError(`${label} returned ${typeof outcome}; expected { reply?, note?, veto? } or nothing`);
    const { reply, note, veto } = outcome;
    if (veto !== undefined && reply !== undefined) throw new TypeError(`${label} returned both a veto and a reply; a vetoed reply is not replaced`);
    for (const [name, value] of [["note", note], ["veto", veto]] as const) {
      if (value !== undefined && typeof value !== "string") throw new TypeError(`${label}: ${name} must be a string`);
    }
    if (reply !== undefined && (typeof reply?.text !== "string" || !Array.isArray(reply.toolCalls))) {
      throw new TypeError(`${label}: reply must be { text: string, toolCalls: [...] }`);
    }
    if (veto === undefined && reply === undefined && note === undefined) continue;
    const record: PostProcessedRecord = { processor: processor.name, turn: context.turn };
    if (note !== undefined) record.note = note;
    if (veto !== undefined) record.veto = veto;
    if (veto !== undefined || reply !== undefined) record.draft = current;
    records.push(record);
    if (veto !== undefined) return { draft: null, records, activated: true };
    if (reply !== undefined) current = reply;
  }
  return { draft: current, records, activated: records.length > 0 };
}
