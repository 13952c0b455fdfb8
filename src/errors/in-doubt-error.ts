import { StatekError } from "./statek-error.ts";

/**
 * What agent code (and so the model) reads for an effect that was started but whose end was never recorded:
 * its worker stopped in between, so it may or may not have taken effect, and it is not made again unless the
 * tool says it is idempotent. The model should check before acting again.
 */
export class InDoubtError extends StatekError {
  /** The call in doubt, as the model knows it (`calendar.move(…)`). */
  readonly call: string;

  constructor({ call }: { call: string }) {
    super({ name: "InDoubtError", message: `${call} was started but its worker stopped before it finished; it may or may not have taken effect` });
    this.call = call;
  }
}
