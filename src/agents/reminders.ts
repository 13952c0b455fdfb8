/**
 * @module
 * Dialog reminders: text a dialog agent's model is shown when a reply would end the user's turn, so it
 * finishes what the turn needs first ("Report the outcome with reportOutcome() before you finish."). The first
 * reminder that is due fires — the dialog has at least its `minDialogLength` messages (the user's and the
 * agent's, this reply's included) — and a reminder fires at most once per turn of the user, so a model that
 * ignores it still ends the turn with its next reply.
 */

/** A reminder as an agent is given it. */
export interface Reminder {
  /** What the model is told. */
  text: string;
  /** Fire only once the dialog has this many messages (the user's and the agent's). @default 0: always due */
  minDialogLength?: number;
}

/** Checks an agent's reminders; a `TypeError` names the bad one. */
export function checkReminders(reminders: unknown, label: string): Reminder[] {
  if (reminders === undefined) return [];
  if (!Array.isArray(reminders)) throw new TypeError(`${label}: reminders must be a list of { text, minDialogLength? }`);
  return reminders.map((reminder: unknown, index) => {
    const entry = reminder as Partial<Reminder> | null;
    if (typeof entry !== "object" || entry === null || typeof entry.text !== "string" || !entry.text.trim()) {
      throw new TypeError(`${label}: reminders[${index}] needs a text (a non-empty string)`);
    }
    const min = entry.minDialogLength;
    if (min !== undefined && !(Number.isInteger(min) && min >= 0)) throw new TypeError(`${label}: reminders[${index}].minDialogLength must be a whole number ≥ 0`);
    return Object.freeze({ text: entry.text.trim(), ...(min === undefined ? {} : { minDialogLength: min }) });
  });
}

/** The reminder due for a dialog of `length` messages, if any. */
export function dueReminder(reminders: readonly Reminder[], length: number): Reminder | undefined {
  return reminders.find((reminder) => length >= (reminder.minDialogLength ?? 0));
}
