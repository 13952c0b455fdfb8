/**
 * @module
 * Durations as the CLI and the UI show them.
 */

/** `320 ms` under a second, `1.5 s` from one. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "?";
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
