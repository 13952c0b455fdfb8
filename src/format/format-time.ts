/**
 * @module
 * Timestamps as the CLI and the UI show them.
 */

/** Epoch milliseconds as ISO 8601 UTC to the second (`2025-01-06T10:00:00Z`). */
export function formatTime(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return "?";
  return new Date(epochMs).toISOString().slice(0, 19) + "Z";
}
