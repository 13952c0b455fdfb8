/**
 * @module
 * Running an agent's post-processors (`agents/post-processor.ts`) over a model reply before it is committed:
 * in order, each seeing the previous one's result, a veto ending the chain.
 */
import type { PostProcessor, PostProcessorContext, ReplyDraft } from "../../agents/post-processor.ts";
import type { PostProcessedRecord } from "../history/history.ts";

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
