/**
 * @module
 * The calendar assistant: a system prompt, the tools, and either a real model (a `MODEL` string such as
 * `openai/gpt-5-mini`, resolved by STATEK's model registry) or a scripted model that replays what a model
 * would write for "move my weekly planning to later today".
 */
import { Agent, scriptedModel, type Tool } from "../../src/index.ts";

/** The system prompt; the placeholders are filled per job. */
export const SYSTEM_PROMPT = `You help users manage their calendar by writing TypeScript.

Available variables: {shared_var_names}

Available tools:
{brief_tools}

brief(x) and docstr(x) print the documentation of a tool, object or class; docstr(calendar, "eventsFor") of one method.

Write code in \`\`\`ts blocks. Variables you declare persist between steps. Call exit(result) when done.`;

/** What the scripted model answers, turn by turn. */
export const SCRIPT = [
  "Let me look at today's meetings first.\n```ts\nconst events = calendar.eventsFor(today);\nevents\n```",
  "I'll find the weekly planning meeting and the first free slot after it.\n```ts\n" +
    'const meeting = calendar.findMeeting("Weekly planning", { day: today });\n' +
    "const laterSlot = findEmptySlot(calendar, meeting.endsAt, meeting.durationMinutes);\n" +
    "laterSlot\n```",
  "That slot is free. Moving the meeting there.\n```ts\n" +
    "const updated = moveMeeting(meeting, laterSlot);\n" +
    'print(`Moved "${updated.title}" for ${user.name}: it now starts at ${updated.startsAt.toISOString()}`);\n```',
  "Done.\n```ts\nexit({ moved: updated.title, newStart: updated.startsAt })\n```",
];

/** What the user asks for. */
export const REQUEST = "Please move my weekly planning meeting to the first free slot after it today.";

/** The calendar assistant: with `modelName` (`openai/gpt-5-mini`) a real model, else the script above. */
export function calendarAgent(tools: Tool[], modelName?: string): Agent {
  return new Agent({
    role: "calendar_assistant",
    systemPrompt: SYSTEM_PROMPT,
    tools,
    metadata: { CHAT_STYLE: "MARKDOWN", ...(modelName ? { MODEL: modelName } : {}) },
    ...(modelName ? {} : { model: scriptedModel(SCRIPT) }),
    harness: { maxTurns: 12 },
  });
}
