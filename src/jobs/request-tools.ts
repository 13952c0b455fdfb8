/**
 * @module
 * The formal tools offered to the model in a request (the provider payload): `ts_cli` in the `DIRECT` chat
 * style, and the agent's tools when the job's metadata sets `LLM_TOOLS_SCOPE`.
 *
 * Interim selection, until the Tools page's `LLM_TOOLS_SCOPE` grammar (`SYSTEM`/`APPLICATION`/`ALL`,
 * `+a,b`/`-c`) and `target` filtering land: any non-blank scope offers every tool of the agent that is not
 * hidden, with a plain JSON Schema of its parameters.
 */
import { z } from "zod";
import type { ModelToolPayload } from "../models/model-request.ts";
import type { JsonValue } from "../store/store.ts";
import type { Tool } from "../tools/tool.ts";
import type { Agent } from "./agent.ts";
import type { ChatStyle } from "./chat-styles/chat-style.ts";
import { tsCliTool } from "./ts-cli.ts";

/** The tools to offer the model for one request. */
export function requestTools(agent: Agent, style: ChatStyle, metadata: Readonly<Record<string, JsonValue>>): ModelToolPayload[] {
  const tools: Tool[] = style === "DIRECT" ? [tsCliTool] : [];
  const scope = metadata.LLM_TOOLS_SCOPE;
  if (typeof scope === "string" && scope.trim() !== "") tools.push(...agent.tools.filter((candidate) => !candidate.hidden));
  return tools.map(toPayload);
}

function toPayload(candidate: Tool): ModelToolPayload {
  const schema = z.toJSONSchema(candidate.params, { unrepresentable: "any", io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  return { name: candidate.name, description: candidate.description, inputSchema: schema };
}
