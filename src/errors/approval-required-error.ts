import { StatekError } from "./statek-error.ts";

/**
 * A formal (provider) tool call named a tool that needs a human's approval: such a call cannot wait, so it is
 * refused; agent code can call the tool, and its job then waits for the decision.
 */
export class ApprovalRequiredError extends StatekError {
  readonly toolName: string;

  constructor({ toolName }: { toolName: string }) {
    super({
      name: "ApprovalRequiredError",
      message: `${toolName} needs a human's approval, which a formal tool call cannot wait for; call it from code (await ${toolName}(…)) so the job can wait`,
    });
    this.toolName = toolName;
  }
}
