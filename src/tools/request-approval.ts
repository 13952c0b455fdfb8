/**
 * @module
 * The built-in `requestApproval(summary)` tool (DESIGN.md §4): agent code asks a human before it goes on. The
 * job waits (suspended) until `statek.approve` — the call then resolves to the approver's note — or
 * `statek.deny`, which makes it throw `ApprovalDenied: <note>`.
 */
import { z } from "zod";
import { approvalRequest } from "./approval.ts";
import { tool } from "./tool.ts";

/** `requestApproval(summary)`: waits for a human's approval of what `summary` says. */
export const requestApproval = tool({
  name: "requestApproval",
  description:
    "Ask a human to approve what you are about to do, and wait for the decision (the job is suspended meanwhile). " +
    "Resolves to the approver's note when approved; throws `ApprovalDenied: <note>` when denied.",
  params: z.object({ summary: z.string().min(1).describe("What you ask approval for, in a sentence the approver reads.") }),
  returns: "The approver's note (a string), or undefined when they gave none.",
  system: true,
  run: function requestApproval({ summary }, ctx) {
    return approvalRequest(ctx, "requestApproval", { summary }, { summary, resume: "note" });
  },
});
