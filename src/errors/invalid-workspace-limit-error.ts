import { StatekError } from "./statek-error.ts";

/** A workspace limit was configured with a value it cannot take (`Statek.open({ workspaceLimits })`, `Workspace.open`). */
export class InvalidWorkspaceLimitError extends StatekError {
  /** The option at fault, e.g. `memoryBytes`. */
  readonly limit: string;
  /** The value that was given. */
  readonly value: unknown;

  constructor({ limit, value, expected }: { limit: string; value: unknown; expected: string }) {
    super({ name: "InvalidWorkspaceLimitError", message: `workspace limit ${limit}: expected ${expected}, got ${formatValue(value)}` });
    this.limit = limit;
    this.value = value;
  }
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) return String(value);
  return typeof value;
}
