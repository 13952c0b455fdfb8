import { StatekError } from "./statek-error.ts";

/** The guest error a runtime entry threw (`TypeError: …` inside the sandbox), as the host receives it (a plain record, so it can be stored). */
export type GuestErrorInfo = {
  readonly name: string;
  readonly message: string;
};

/**
 * A guest error that a runtime entry or a sandbox thread's command reported to the scheduling thread: the
 * entry ran and threw in the guest (not a failure of the thread). Its message is the guest's `<name>: <message>`.
 */
export class GuestEntryError extends StatekError {
  readonly guest: GuestErrorInfo;

  constructor({ guest }: { guest: GuestErrorInfo }) {
    super({ name: "GuestEntryError", message: `${guest.name}: ${guest.message}` });
    this.guest = guest;
  }
}

/** The name and message of an error, as the guest and the records carry it. */
export function errorInfo(error: Error): GuestErrorInfo {
  return { name: error.name, message: error.message };
}
