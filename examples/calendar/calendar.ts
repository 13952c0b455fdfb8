/**
 * @module
 * A small calendar application: meetings stored durably in their own SQLite table. The agent gets the
 * `calendar` object in scope and reads it directly; changes go through the `moveMeeting` tool.
 */
import { DatabaseSync } from "node:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { llmRepr } from "../../src/index.ts";

const MINUTE = 60_000;

/** A free interval in the calendar. */
export interface Slot {
  start: Date;
  end: Date;
}

function hhmm(date: Date): string {
  return date.toISOString().slice(11, 16);
}

/** One meeting. Its fields are public, so agent code can read them. */
export class Meeting {
  readonly id: number;
  title: string;
  startsAt: Date;
  endsAt: Date;

  constructor(id: number, title: string, startsAt: Date, endsAt: Date) {
    this.id = id;
    this.title = title;
    this.startsAt = startsAt;
    this.endsAt = endsAt;
  }

  /** Length in minutes. */
  get durationMinutes(): number {
    return Math.round((this.endsAt.getTime() - this.startsAt.getTime()) / MINUTE);
  }

  [llmRepr.symbol](): string {
    return `Meeting(${JSON.stringify(this.title)}, ${this.startsAt.toISOString().slice(0, 10)} ${hhmm(this.startsAt)}–${hhmm(this.endsAt)} UTC)`;
  }
}

/** A calendar whose meetings live in a SQLite file. */
export class Calendar {
  readonly owner: string;
  #db: DatabaseSync;

  constructor(path: string, owner: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.owner = owner;
    this.#db = new DatabaseSync(path);
    this.#db.exec(`CREATE TABLE IF NOT EXISTS meetings (
      id INTEGER PRIMARY KEY, title TEXT NOT NULL, starts_at INTEGER NOT NULL, ends_at INTEGER NOT NULL)`);
  }

  #toMeeting(row: Record<string, unknown>): Meeting {
    return new Meeting(Number(row.id), String(row.title), new Date(Number(row.starts_at)), new Date(Number(row.ends_at)));
  }

  /** Replaces the meetings of `day` (UTC) with the given ones: `[title, "HH:MM", minutes]`. */
  seedDay(day: Date, meetings: Array<[string, string, number]>): void {
    const start = startOfDay(day).getTime();
    this.#db.prepare("DELETE FROM meetings WHERE starts_at >= ? AND starts_at < ?").run(start, start + 24 * 60 * MINUTE);
    const insert = this.#db.prepare("INSERT INTO meetings (title, starts_at, ends_at) VALUES (?, ?, ?)");
    for (const [title, time, minutes] of meetings) {
      const [hours, mins] = time.split(":").map(Number);
      const startsAt = start + (hours! * 60 + mins!) * MINUTE;
      insert.run(title, startsAt, startsAt + minutes * MINUTE);
    }
  }

  /** The meetings of a day (UTC), in start order. */
  eventsFor(day: Date): Meeting[] {
    const start = startOfDay(day).getTime();
    return this.#db
      .prepare("SELECT * FROM meetings WHERE starts_at >= ? AND starts_at < ? ORDER BY starts_at")
      .all(start, start + 24 * 60 * MINUTE)
      .map((row) => this.#toMeeting(row));
  }

  /** The meeting titled `title` on `day`, or `null`. */
  findMeeting(title: string, { day }: { day: Date }): Meeting | null {
    return this.eventsFor(day).find((meeting) => meeting.title === title) ?? null;
  }

  /** A meeting by id, or `null`. */
  meeting(id: number): Meeting | null {
    const row = this.#db.prepare("SELECT * FROM meetings WHERE id = ?").get(id);
    return row ? this.#toMeeting(row) : null;
  }

  /** The first free slot of `durationMinutes` starting at or after `after`, on the same day, or `null`. */
  findEmptySlot({ after, durationMinutes, ignore }: { after: Date; durationMinutes: number; ignore?: number }): Slot | null {
    const dayEnd = startOfDay(after).getTime() + 18 * 60 * MINUTE;
    let candidate = after.getTime();
    for (const meeting of this.eventsFor(after)) {
      if (meeting.id === ignore || meeting.endsAt.getTime() <= candidate) continue;
      if (meeting.startsAt.getTime() >= candidate + durationMinutes * MINUTE) break;
      candidate = meeting.endsAt.getTime();
    }
    if (candidate + durationMinutes * MINUTE > dayEnd) return null;
    return { start: new Date(candidate), end: new Date(candidate + durationMinutes * MINUTE) };
  }

  /** Moves a meeting to a slot (the application's write path). */
  move(meeting: Meeting, slot: Slot): Meeting {
    this.#db.prepare("UPDATE meetings SET starts_at = ?, ends_at = ? WHERE id = ?").run(slot.start.getTime(), slot.end.getTime(), meeting.id);
    return this.meeting(meeting.id)!;
  }

  close(): void {
    this.#db.close();
  }
}

/** Midnight UTC of the day `date` falls on. */
export function startOfDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}
