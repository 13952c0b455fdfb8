/**
 * @module
 * Timestamps as the CLI and the UI show them.
 */

/** Epoch milliseconds as ISO 8601 UTC to the second (`2025-01-06T10:00:00Z`). */
export function formatTime(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return "?";
  return new Date(epochMs).toISOString().slice(0, 19) + "Z";
}

/**
 * Epoch milliseconds in the process's local time zone, with its offset (`2025-01-06 11:00:00 +01:00`): what an
 * operator's terminal shows. Node reads the zone from `TZ`.
 */
export function formatLocalTime(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return "?";
  const date = new Date(epochMs);
  const two = (value: number) => String(value).padStart(2, "0");
  const offset = -date.getTimezoneOffset();
  const zone = `${offset < 0 ? "-" : "+"}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${zone}`;
}

/** A span of time in the largest units that matter: `450 ms`, `12 s`, `5 min`, `3 h 20 min`, `2 d 4 h`. */
export function formatSpan(ms: number): string {
  if (!Number.isFinite(ms)) return "?";
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(abs)} ms`;
  if (abs < 60_000) return `${Math.floor(abs / 1_000)} s`;
  if (abs < 3_600_000) return `${Math.floor(abs / 60_000)} min`;
  if (abs < 86_400_000) {
    const minutes = Math.floor((abs % 3_600_000) / 60_000);
    return `${Math.floor(abs / 3_600_000)} h${minutes ? ` ${minutes} min` : ""}`;
  }
  const hours = Math.floor((abs % 86_400_000) / 3_600_000);
  return `${Math.floor(abs / 86_400_000)} d${hours ? ` ${hours} h` : ""}`;
}

/** `epochMs` relative to `now`: `3 min ago`, `in 5 s`, `just now` within a second. */
export function formatRelativeTime(epochMs: number, now: number = Date.now()): string {
  if (!Number.isFinite(epochMs)) return "?";
  const delta = epochMs - now;
  if (Math.abs(delta) < 1_000) return "just now";
  return delta > 0 ? `in ${formatSpan(delta)}` : `${formatSpan(delta)} ago`;
}
