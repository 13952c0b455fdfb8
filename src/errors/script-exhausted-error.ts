import { StatekError } from "./statek-error.ts";

/**
 * A scripted model received more requests than it has turns: the code under test called the model more often
 * than the test expected. The message gives both counts.
 *
 * @example
 * ```ts
 * const model = scriptedModel(["only answer"]);
 * await generateReply(model, request);
 * await generateReply(model, request); // ScriptExhaustedError: scriptedModel: the script has 1 turn and a 2nd request was made
 * ```
 */
export class ScriptExhaustedError extends StatekError {
  /** How many turns the script holds. */
  readonly turnCount: number;
  /** The 1-based number of the request that found no turn left. */
  readonly requestNumber: number;

  constructor({ turnCount, requestNumber }: { turnCount: number; requestNumber: number }) {
    super({
      name: "ScriptExhaustedError",
      message: `scriptedModel: the script has ${turnCount} ${turnCount === 1 ? "turn" : "turns"} ` +
        `and a ${ordinal(requestNumber)} request was made`,
    });
    this.turnCount = turnCount;
    this.requestNumber = requestNumber;
  }
}

/** `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`. */
function ordinal(value: number): string {
  const lastTwo = value % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return `${value}th`;
  const suffix = ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[value % 10] ?? "th";
  return `${value}${suffix}`;
}
