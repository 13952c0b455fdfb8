/**
 * @module
 * The messages of durable waits that the cell host reads: which kind of wait a host-made future
 * reply names, what agent code may ask to wait for (and with what data: agent code is hostile), and the reply
 * that hands the guest a child job's handle.
 */
import { errorReply } from "./guest/guest-protocol.ts";
import { parseUntrusted } from "./membrane/untrusted-json.ts";
import type { ChildHandleInfo } from "./cell-host.ts";

/** The `kind` a future reply names (`approval`, `child`), if any; an application's future names none. */
export function futureKindOf(reply: string): string | undefined {
  // Only the host writes these replies (the guest never sends one), and they start `f{"kind":"…"` when they have one.
  const match = /^f\{"kind":"([a-z]+)"/.exec(reply);
  return match?.[1];
}

/**
 * The waits agent code may ask for itself, with only the data it may give: agent code is hostile, so it never
 * names an application's future, makes a tool's approval request, or carries a child job's rows.
 */
export function guestWait([kind = "", text = ""]: readonly string[]): readonly string[] | string {
  const refuse = (message: string) => errorReply("TypeError", message);
  let data: unknown;
  try {
    data = text ? parseUntrusted(text) : null;
  } catch {
    return refuse("a wait with unreadable data");
  }
  const field = (name: string) => (typeof data === "object" && data !== null ? (data as Record<string, unknown>)[name] : undefined);
  switch (kind) {
    case "timer":
      return [kind, JSON.stringify({ ms: field("ms") ?? null })];
    case "message":
      return [kind, "{}"];
    case "approval": {
      const summary = field("summary");
      if (typeof summary !== "string" || !summary.trim()) return refuse("requestApproval(summary): expected a sentence saying what to approve");
      return [kind, JSON.stringify({ summary: summary.length > 10_000 ? `${summary.slice(0, 10_000)}…` : summary })];
    }
    case "child": {
      const key = field("key");
      if (typeof key !== "string") return refuse("await of a child job without its id");
      return [kind, JSON.stringify({ key })];
    }
    default:
      return refuse(`unknown wait '${kind}'`);
  }
}

/** The reply that hands the guest a child job's handle. */
export function childReply(info: ChildHandleInfo): string {
  return "c" + JSON.stringify({ id: info.id, role: info.role, state: info.state });
}
