import { StatekError } from "./statek-error.ts";

/**
 * A human denied an approval request (`statek.deny`): the awaited call of a `needsApproval` tool (or
 * `requestApproval`) throws it in agent code, which can catch it by name (`error.name === "ApprovalDenied"`).
 * Its name is the one agent code and the model read (`ApprovalDenied: <note>`), as the design names it, so it
 * does not end in `Error`.
 */
export class ApprovalDenied extends StatekError {
  /** The approval request (its key). */
  readonly requestId: string;
  /** The note the person who denied it gave, if any. */
  readonly note: string | undefined;

  constructor({ requestId, note }: { requestId: string; note?: string | undefined }) {
    super({ name: "ApprovalDenied", message: deniedMessage(note) });
    this.requestId = requestId;
    this.note = note;
  }
}

/** The message agent code reads for a denial: the note, or a plain sentence when there is none. */
export function deniedMessage(note: string | undefined): string {
  return note?.trim() ? note : "the request was denied";
}
