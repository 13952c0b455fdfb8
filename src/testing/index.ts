/**
 * @module
 * `statek/testing`: what tests of agents use. `scriptedModel(turns)` is a real AI SDK model that replays
 * scripted turns and records every request it receives (`.requests`); `runTestJob(agent)` runs one job of an
 * agent in a private in-memory store and returns its view. This entry only re-exports.
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "../runtime/check-node-version.ts";

/** The scripted model, and what it records. */
export { scriptedModel, ScriptedModel } from "../models/scripted-model.ts";
export type { ScriptedTurn, ScriptedRequest, ScriptedModelOptions } from "../models/scripted-model.ts";
export type { ModelToolPayload as ToolPayload } from "../models/model-request.ts";
export { ScriptExhaustedError } from "../errors/script-exhausted-error.ts";

/** Running one job of an agent. */
export { runTestJob } from "./run-test-job.ts";
export type { RunTestJobOptions } from "./run-test-job.ts";
