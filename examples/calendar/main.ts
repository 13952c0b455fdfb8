/**
 * @module
 * `npm run demo`: the seed's calendar assistant, end to end. A job starts with `user`, `calendar` and `today`
 * in scope; the model's code reads the calendar, finds "Weekly planning", finds a free slot after it, moves
 * the meeting through the `moveMeeting` tool and prints the new start. Each step is printed as it happens.
 *
 * The model is real when `STATEK_MODEL` names one (`STATEK_MODEL=openai/gpt-5-mini` with `OPENAI_API_KEY`
 * set), else scripted; the demo says which.
 *
 * Data lives in `./statek-data/` (override with `STATEK_DATA_DIR`): the job store `statek.db` and the
 * calendar's own `calendar.db`. `STATEK_STORE=postgres://…` puts the jobs in PostgreSQL instead. Every run
 * seeds today's meetings afresh and submits a new job.
 *
 * The example imports STATEK from this repository's sources (`../../src/index.ts`), so the demo always runs the
 * code beside it; in your project the same imports come from `"statek"`.
 */
import { Statek, type HistoryRecord } from "../../src/index.ts";
import { formatCost } from "../../src/format/index.ts";
import { createModelRegistry } from "../../src/models/index.ts";
import { REQUEST, calendarAgent } from "./agent.ts";
import { Calendar, Meeting, startOfDay } from "./calendar.ts";
import { findEmptySlot, moveMeetingTool } from "./tools.ts";

/** The demo's user: an application object, in scope as `user`. */
export class User {
  readonly name: string;
  readonly email: string;
  constructor(name: string, email: string) {
    this.name = name;
    this.email = email;
  }
}

const dataDir = process.env.STATEK_DATA_DIR ?? "./statek-data";
const storePath = process.env.STATEK_STORE || `${dataDir}/statek.db`;
const storeKind = /^postgres(ql)?:/i.test(storePath) ? "PostgreSQL" : "SQLite";

const user = new User("Ada", "ada@example.com");
const calendar = new Calendar(`${dataDir}/calendar.db`, user.name);
const today = startOfDay(new Date());
calendar.seedDay(today, [
  ["Standup", "09:00", 15],
  ["Weekly planning", "10:00", 60],
  ["Lunch", "12:00", 60],
  ["Design review", "14:00", 60],
]);

console.log("STATEK calendar demo");
const modelName = await usableModel(process.env.STATEK_MODEL);
if (modelName) {
  console.log(`This run uses a real model: ${modelName}. Its replies are its own; the execution is real —`);
  console.log(`a QuickJS sandbox, durable variables and a ${storeKind} store.\n`);
} else {
  console.log("This run replays a scripted model (no API key needed): the replies below are fixed, the execution is real —");
  console.log(`a QuickJS sandbox, durable variables and a ${storeKind} store. Set STATEK_MODEL=openai/gpt-5-mini and OPENAI_API_KEY`);
  console.log("to run a real model.\n");
}

const agent = calendarAgent([findEmptySlot, moveMeetingTool(calendar)], modelName);
const statek = await Statek.open({ store: storePath, agents: [agent], bindings: { calendar, user } });
statek.expose(Meeting, { id: (meeting) => meeting.id, load: (id) => calendar.meeting(Number(id)) });

const { id } = await statek.submitJob(agent, { vars: { user, calendar, today }, message: REQUEST });
console.log(`Submitted job ${id} with user, calendar and today in scope.\n`);

let shown = 0;
let view = await statek.step(id);
for (;;) {
  for (const record of view.history.slice(shown)) printRecord(record);
  shown = view.history.length;
  if (view.status === "DONE" || view.status === "FAILED") break;
  view = await statek.step(id);
}

const moved = calendar.findMeeting("Weekly planning", { day: today });
console.log(`\nFinal status: ${view.status}${view.error ? ` (${view.error})` : ""}`);
if (moved) console.log(`"Weekly planning" now starts at ${moved.startsAt.toISOString()}`);
console.log(`Job id: ${id}`);
// A PostgreSQL URL may hold a password: it is named, not printed.
console.log(`Inspect it: npx statek show ${id} --store ${storeKind === "SQLite" ? storePath : '"$STATEK_STORE"'}`);
const { inputTokens, cachedInputTokens, outputTokens, cost } = view.usage;
console.log(`Usage: ${inputTokens} input tokens (${cachedInputTokens} cached), ${outputTokens} output tokens${cost === null ? "" : `, ${formatCost(cost)}`}`);
await statek.close();
calendar.close();
process.exitCode = view.status === "DONE" ? 0 : 1;

/** `STATEK_MODEL` when it names a model this machine can use (package installed, key set); else why not, and `undefined`. */
async function usableModel(name: string | undefined): Promise<string | undefined> {
  if (!name) return undefined;
  try {
    await createModelRegistry().resolve(name);
    return name;
  } catch (error) {
    console.log(`STATEK_MODEL=${name} cannot be used (${(error as Error).message}), so the scripted model runs instead.`);
    return undefined;
  }
}

function printRecord(record: HistoryRecord): void {
  switch (record.kind) {
    case "model-response":
      console.log(`── turn ${record.data.turn}: the model wrote ──`);
      for (const line of (record.data.code ?? record.data.text).split("\n")) console.log(`    ${line}`);
      break;
    case "console":
      console.log(`  ${record.data.stream === "error" ? "✗" : ">"} ${record.data.text}`);
      break;
    case "tool-call":
      console.log(`  → ${record.data.name}(…) ${record.data.error ? `failed: ${record.data.error}` : `= ${record.data.result}`}`);
      break;
    case "status":
      if (record.data.status !== "STARTED") console.log(`  status: ${record.data.status}${record.data.reason ? ` — ${record.data.reason}` : ""}`);
      break;
  }
}
