/**
 * @module
 * A model reply kept in the step's journal from the moment it arrives until the step commits (a paid model
 * call is not made again). The step's commit records the reply in the history; but a step that
 * cannot commit — its store down past the retries, its lease taken while its event loop stalled, a commit that
 * cannot be rebased — is done again, and the attempt that does it again finds the reply of that turn here
 * instead of asking the model again. Only a crash between the reply's arrival and this write (one fenced write,
 * group-committed) still pays a turn twice.
 *
 * The reply is a journal item of its own part (`reply`), keyed by its turn: a cell replays only its own part,
 * and a later turn never takes an earlier turn's reply. The step that asked clears the journal with its commit.
 */
import type { ModelReply } from "../../models/model-request.ts";
import type { JobRow } from "../../store/store.ts";
import type { JournalItem } from "../../workspace/cell-journal.ts";
import { journaledReplySchema } from "../history/history-schemas.ts";
import { recordedParts, recordedReasoning, recordedToolCall, recordedUsage } from "../history/recorded-reply.ts";
import type { JournaledReply } from "../history/history.ts";
import type { StepTransaction } from "./step-transaction.ts";

/** The journal part of model replies. */
const PART = "reply";
/** The operation a journaled reply is kept under (a `msg` item: `h` is its turn, `r` the reply as JSON). */
const OP = "model-reply";

/** A journaled reply, with how many user messages the request that got it showed the model. */
export interface FoundReply {
  reply: ModelReply;
  messagesSeen: number;
}

/** The replies of the job's journal, and the recording of a new one. */
export interface ReplyJournal {
  /** The reply of turn `turn` an earlier attempt at this step received, if the journal has it (and it can be read). */
  find(turn: number): FoundReply | undefined;
  /**
   * Makes the reply of turn `turn` durable in the journal (fenced by the step's lease); `messagesSeen` is how
   * many user messages its request showed (a message that arrives before the step is done again was not seen).
   */
  record(turn: number, reply: ModelReply, messagesSeen: number): Promise<void>;
  /**
   * Resolves when the step still holds its job, just before a model call is paid for; rejects with
   * `LeaseLostError` when another worker took the job over while this process was stopped or stalled.
   */
  confirmHeld(): Promise<void>;
}

/** The reply journal of the step of `tx` over job `row`, whose journal (by part) the step read as `journal`. */
export function replyJournal(tx: StepTransaction, row: JobRow, journal: ReadonlyMap<string, readonly JournalItem[]>): ReplyJournal {
  return {
    find(turn) {
      const item = (journal.get(PART) ?? []).findLast((entry) => entry.t === "msg" && entry.op === OP && entry.h === turn);
      if (item?.t !== "msg") return undefined;
      try {
        const parsed = journaledReplySchema.safeParse(JSON.parse(item.r));
        return parsed.success ? { reply: replyOf(parsed.data), messagesSeen: parsed.data.messagesSeen ?? 0 } : undefined;
      } catch {
        // A reply that cannot be read back is asked for again: the model's answer, not the job's record, is lost.
        return undefined;
      }
    },
    confirmHeld: () => tx.confirmHeld(),
    async record(turn, reply, messagesSeen) {
      let length = 0;
      for (const items of journal.values()) length += items.length;
      tx.journalFor(row.cell, length);
      tx.appendPart([{ t: "msg", seq: 0, op: OP, h: turn, w: `the model's reply of turn ${turn}`, r: JSON.stringify({ ...journaledOf(reply), messagesSeen }) }], PART);
      await tx.flush();
    },
  };
}

/** A reply in its recorded form. */
function journaledOf(reply: ModelReply): JournaledReply {
  const parts = recordedParts(reply.parts);
  return {
    text: reply.text,
    toolCalls: reply.toolCalls.map(recordedToolCall),
    reasoning: recordedReasoning(reply),
    ...(parts ? { parts } : {}),
    usage: recordedUsage(reply.usage),
    finishReason: reply.finishReason,
    ...(reply.rawFinishReason === undefined ? {} : { rawFinishReason: reply.rawFinishReason }),
    modelName: reply.modelName,
  };
}

/** The reply a recorded form stands for. */
function replyOf(journaled: JournaledReply): ModelReply {
  return {
    text: journaled.text,
    toolCalls: journaled.toolCalls.map((call) => ({ ...call })),
    reasoning: journaled.reasoning.map((part) => ({ ...part })),
    ...(journaled.parts ? { parts: journaled.parts.map((part) => ({ ...part })) } : {}),
    usage: { ...journaled.usage },
    finishReason: journaled.finishReason,
    ...(journaled.rawFinishReason === undefined ? {} : { rawFinishReason: journaled.rawFinishReason }),
    modelName: journaled.modelName,
  };
}
