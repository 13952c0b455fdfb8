/**
 * @module
 * `statek/agents`: helpers for composing an agent beyond `new Agent()`, `tool()` and `errorHandler()` (which the
 * main entry exports): the system tools every agent gets unless it says otherwise (`new Agent({ systemTools:
 * [...SYSTEM_TOOLS, mine] })`), and checks for tools and error handlers. This entry only re-exports.
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "../runtime/check-node-version.ts";
export { SYSTEM_TOOLS } from "./system-tools.ts";
export { isTool } from "../tools/tool.ts";
export { isErrorHandler } from "../tools/error-handler.ts";
