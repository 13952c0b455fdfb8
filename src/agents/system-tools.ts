/**
 * @module
 * The built-in system tools every agent's jobs have unless the agent says otherwise
 * (`new Agent({ systemTools })`): `brief` and `docstr`. An explicit list — a registry is the agent's tools
 * plus these, never a process-wide list. Chat styles that bring their own system tool (`ts_cli` for
 * `DIRECT`) add it here.
 */
import { DOCUMENTATION_TOOLS } from "../docs/system-tools.ts";
import type { Tool } from "../tools/tool.ts";

/** The default system tools of an agent. */
export const SYSTEM_TOOLS: readonly Tool[] = Object.freeze([...DOCUMENTATION_TOOLS]);
