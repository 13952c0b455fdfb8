import { StatekError } from "./statek-error.ts";

/**
 * What a replayed cell ends with when it asks for something other than its journal recorded at that point: the
 * cell's code or the values it read changed since it first ran, so its recorded effects cannot be matched.
 * Its name is the one agent code and the model read, so it does not end in `Error`.
 */
export class ReplayDivergence extends StatekError {
  /** The crossing's number in the cell, from 1. */
  readonly call: number;
  /** What the cell asked for now. */
  readonly called: string;
  /** What the journal holds at that point. */
  readonly recorded: string;

  constructor({ call, called, recorded }: { call: number; called: string; recorded: string }) {
    super({ name: "ReplayDivergence", message: `at call ${call} the cell called ${called} but the journal recorded ${recorded}` });
    this.call = call;
    this.called = called;
    this.recorded = recorded;
  }
}
