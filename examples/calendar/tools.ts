/**
 * @module
 * The calendar agent's tools: the controlled capabilities (the seed's examples). Reads go
 * straight to the `calendar` object in scope; the write goes through `moveMeeting`.
 */
import { z } from "zod";
import { describeClass, tool } from "../../src/index.ts";
import { Calendar, Meeting } from "./calendar.ts";

// What the model reads about the objects in scope (`brief(calendar)`, `docstr(calendar, "eventsFor")`).
describeClass(Calendar, {
  description: "The user's calendar (times are UTC). Read it directly; change meetings only with moveMeeting.",
  members: {
    owner: { description: "Whose calendar it is.", type: "string" },
    eventsFor: { description: "The meetings of a day, in start order.", type: "(day: Date): Meeting[]", params: { day: "Any time on that day." } },
    findMeeting: {
      description: "The meeting with this title on a day, or null.",
      type: "(title: string, options: { day: Date }): Meeting | null",
      params: { title: "The exact title.", options: "{ day }: the day to look on." },
    },
    meeting: { description: "A meeting by id, or null.", type: "(id: number): Meeting | null", params: { id: "The meeting's id." } },
  },
  // Writes go through the moveMeeting tool; the model is not told about the calendar's own write paths.
  acl: "+*\n-move\n-seedDay\n-close\n-findEmptySlot",
});

describeClass(Meeting, {
  description: "One meeting of the calendar.",
  members: {
    id: { description: "Its id.", type: "number" },
    title: { description: "Its title.", type: "string" },
    startsAt: { description: "When it starts.", type: "Date" },
    endsAt: { description: "When it ends.", type: "Date" },
    durationMinutes: { description: "Its length in minutes.", type: "number" },
  },
});

/** Finds a free slot after a time. */
export const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find an available calendar slot after a given time.",
  params: z.object({
    calendar: z.instanceof(Calendar).describe("Calendar object to search."),
    after: z.date().describe("Earliest acceptable start time."),
    durationMinutes: z.number().int().positive().default(30).describe("Required meeting length."),
  }),
  returns: z.object({ start: z.date(), end: z.date() }).nullable().describe("The first free slot, or null when the day is full."),
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
    returns: z.instanceof(Meeting).describe("The updated meeting."),
    run: ({ meeting, newSlot }) => {
      if (newSlot.end <= newSlot.start) throw new RangeError("the slot ends before it starts");
      if (!calendar.meeting(meeting.id)) throw new Error(`meeting ${meeting.id} is not in ${calendar.owner}'s calendar`);
      return calendar.move(meeting, newSlot);
    },
  });
}
