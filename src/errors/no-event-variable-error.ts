import { StatekError } from "./statek-error.ts";

/**
 * An agent cannot take events: it has no `eventVariable`, and its warmup does not read exactly one name it
 * leaves free (the variable an event would arrive in). Raised before any of its events is taken.
 */
export class NoEventVariableError extends StatekError {
  readonly role: string;
  /** The names the agent's warmup reads without declaring (none, or more than one). */
  readonly freeNames: string[];

  constructor({ role, freeNames }: { role: string; freeNames: string[] }) {
    const found = freeNames.length ? `its warmup reads ${freeNames.length} free names: ${freeNames.join(", ")}` : "its warmup reads no free name";
    super({
      name: "NoEventVariableError",
      message: `agent '${role}' cannot take events: ${found}; name the variable events arrive in with new Agent({ role: "${role}", eventVariable: "event" }) ` +
        "or give it a warmup that reads exactly one variable it does not declare",
    });
    this.role = role;
    this.freeNames = freeNames;
  }
}
