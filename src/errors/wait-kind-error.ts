import { StatekError } from "./statek-error.ts";

/**
 * A durable wait was settled through another kind's door (every wait has a kind, and only its own
 * door settles it): `resolveFuture` on an approval request, a timer or a message wait, say. Nothing was settled.
 */
export class WaitKindError extends StatekError {
  /** The wait's key. */
  readonly key: string;
  /** Its kind: `external`, `approval`, `message`, `timer`, `child` or `checked`. */
  readonly kind: string;
  /** What settles a wait of that kind (`approve()/deny()`, …). */
  readonly settledBy: string;

  constructor({ key, kind, what, settledBy, refused }: { key: string; kind: string; what: string; settledBy: string; refused: string }) {
    super({ name: "WaitKindError", message: `${JSON.stringify(key)} is ${what} (kind ${kind}): only ${settledBy} settles it, not ${refused}` });
    this.key = key;
    this.kind = kind;
    this.settledBy = settledBy;
  }
}
