import type { GuestErrorInfo } from "./guest-entry-error.ts";
import { StatekError } from "./statek-error.ts";

/**
 * A guest error thrown by a runtime entry, inside the engine that ran it (on the sandbox thread, or in the
 * process for the trusted executor); the thread reports it to the scheduling thread as a {@link GuestEntryError}.
 */
export class EntryError extends StatekError {
  readonly guest: GuestErrorInfo;

  constructor({ guest }: { guest: GuestErrorInfo }) {
    super({ name: "EntryError", message: `${guest.name}: ${guest.message}` });
    this.guest = guest;
  }
}
