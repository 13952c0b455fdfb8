import { StatekError } from "./statek-error.ts";

/**
 * A scripted model received more requests than it has turns: the code under test called the model more often
 * than the test expected. The message gives both counts, the job, and what to do.
 *
 * @example
 * ```ts
 * const model = scriptedModel(["only answer"]);
 * await generateReply(model, request);
 * await generateReply(model, request);
 * // ScriptExhaustedError: scriptedModel: the script has 1 turn and a 2nd request was made; add turns to the
 * // script (each job replays it from its first turn), or use a real model
 * ```
 */
export class ScriptExhaustedError extends StatekError {
  /** How many turns the script holds. */
  readonly turnCount: number;
  /** The 1-based number of the request that found no turn left (of its job, for a job's request). */
  readonly requestNumber: number;
  /** The job whose request it was, when a job made it. */
  readonly jobId: string | undefined;

  /**
   * @param options.perJob Whether the count is the job's own (the script is replayed per job), rather than one
   * sequence shared by every call. @default true
   */
  constructor({ turnCount, requestNumber, jobId, perJob = true }: { turnCount: number; requestNumber: number; jobId?: string; perJob?: boolean }) {
    super({
      name: "ScriptExhaustedError",
      message: `scriptedModel: the script has ${turnCount} ${turnCount === 1 ? "turn" : "turns"} ` +
        `and ${ordinalWithArticle(requestNumber)} request was made${jobId === undefined ? "" : ` by job ${jobId}`}; add turns to the script ` +
        `${perJob ? "(each job replays it from its first turn)" : "(with perJob: false every job takes the next turn; leave it out to replay the script per job)"}, or use a real model`,
    });
    this.turnCount = turnCount;
    this.requestNumber = requestNumber;
    this.jobId = jobId;
  }
}

/** `a 1st`, `a 2nd`, `an 8th`, `an 11th`, `an 18th`, `a 21st`, `an 80th`: the article goes by the spoken number. */
function ordinalWithArticle(value: number): string {
  const digits = String(value);
  // "eight…", and "eleven"/"eighteen" when they lead a group of thousands (11, 18, 11 000, 18 000 000).
  const vowelSound = digits.startsWith("8") || (/^1[18]/.test(digits) && digits.length % 3 === 2);
  return `${vowelSound ? "an" : "a"} ${ordinal(value)}`;
}

/** `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`. */
function ordinal(value: number): string {
  const lastTwo = value % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return `${value}th`;
  const suffix = ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[value % 10] ?? "th";
  return `${value}${suffix}`;
}
