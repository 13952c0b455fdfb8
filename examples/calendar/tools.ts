/**
 * @module
 * The calendar agent's tools: the controlled capabilities (DESIGN.md §5, the seed's examples). Reads go
 * straight to the `calendar` object in scope; the write goes through `moveMeeting`.
 */
import { z } from "zod";
import { tool } from "statek";
import { Calendar, Meeting } from "./calendar.ts";

/** Finds a free slot after a time. */
export const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find an available calendar slot after a given time.",
  params: z.object({
    calendar: z.instanceof(Calendar).describe("Calendar object to search."),
    after: z.date().describe("Earliest acceptable start time."),
    durationMinutes: z.number().int().positive().default(30).describe("Required meeting length."),
  }),
  returns: "The first free slot `{ start, end }`, or null when the day is full.",
  readOnly: true,
  run: ({ calendar, after, durationMinutes }) => calendar.findEmptySlot({ after, durationMinutes }),
});

/** Moves a meeting of `calendar`: the side-effect boundary. */
export function moveMeetingTool(calendar: Calendar) {
  return tool({
    name: "moveMeeting",
    description: "Move a meeting after application-level permission checks.",
    params: z.object({
      meeting: z.instanceof(Meeting).describe("Meeting to move."),
      newSlot: z.object({ start: z.date(), end: z.date() }).describe("Approved destination slot."),
    }),
    returns: "The updated meeting.",
    run: ({ meeting, newSlot }) => {
      if (newSlot.end <= newSlot.start) throw new RangeError("the slot ends before it starts");
      if (!calendar.meeting(meeting.id)) throw new Error(`meeting ${meeting.id} is not in ${calendar.owner}'s calendar`);
      return calendar.move(meeting, newSlot);
    },
  });
}
