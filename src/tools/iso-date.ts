/**
 * @module
 * ISO-8601 strings to `Date`s for parameters that take dates (argument preparation step 2).
 *
 * Accepted: a date (`2026-03-10`, `20260310`), a date-time (`2026-03-10T15:00`, `…T15:00:00.250Z`, a space
 * instead of `T`, an offset `+02:00`/`+0200`/`+02`), or a time alone (`15:00`, `15:00:30Z`). Without an
 * offset the time is UTC — a worker's local zone must not change what a job means. A time alone is that time
 * on 1970-01-01. Anything else, or an impossible date (`2026-02-30`), is not a date.
 */

const DATE = String.raw`(\d{4})-?(\d{2})-?(\d{2})`;
const TIME = String.raw`(\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?`;
const OFFSET = String.raw`(Z|[+-]\d{2}(?::?\d{2})?)?`;
const DATE_TIME = new RegExp(`^${DATE}(?:[T ]${TIME}${OFFSET})?$`, "i");
const TIME_ONLY = new RegExp(`^T?${TIME}${OFFSET}$`, "i");

function offsetMinutes(text: string | undefined): number {
  if (!text || text.toUpperCase() === "Z") return 0;
  const sign = text[0] === "-" ? -1 : 1;
  const digits = text.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
}

function build(
  [year, month, day]: [number, number, number],
  [hour, minute, second, fraction]: [number, number, number, string | undefined],
  offset: string | undefined,
): Date | undefined {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return undefined;
  const minutes = offsetMinutes(offset);
  if (Math.abs(minutes) >= 24 * 60) return undefined;
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
  const time = Date.UTC(year, month - 1, day, hour, minute, second, millis) - minutes * 60_000;
  const date = new Date(time);
  if (year < 100) date.setUTCFullYear(year); // Date.UTC maps years 0–99 to 1900–1999
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The `Date` an ISO-8601 date, date-time or time string stands for, or `undefined` when it is not one. */
export function parseIsoDate(text: string): Date | undefined {
  const trimmed = text.trim();
  const full = DATE_TIME.exec(trimmed);
  if (full) {
    const [, y, mo, d, h, mi, s, f, offset] = full;
    // `20260310` and `2026-03-10` but not `2026-0310`: both dashes or neither.
    if ((trimmed[4] === "-") !== (trimmed[7] === "-")) return undefined;
    return build([Number(y), Number(mo), Number(d)], [Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), f], offset);
  }
  const time = TIME_ONLY.exec(trimmed);
  // A bare four-digit string is a year or a number, not a time.
  if (time && trimmed.includes(":")) {
    const [, h, mi, s, f, offset] = time;
    return build([1970, 1, 1], [Number(h), Number(mi), Number(s ?? 0), f], offset);
  }
  return undefined;
}
