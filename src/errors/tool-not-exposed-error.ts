import { StatekError } from "./statek-error.ts";

/**
 * Agent code (or a formal call) asked for a tool the job may not use: a hidden tool without `allowHidden`,
 * or a tool outside the job's allowed set. Prompt visibility is not authorization, so the broker checks this
 * on every call. The model reads `NameError: tool 'x' is not exposed to this job`.
 */
export class ToolNotExposedError extends StatekError {
  readonly toolName: string;

  constructor({ toolName }: { toolName: string }) {
    super({ name: "NameError", message: `tool '${toolName}' is not exposed to this job` });
    this.toolName = toolName;
  }
}
