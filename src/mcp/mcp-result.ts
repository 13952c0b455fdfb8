/**
 * @module
 * An MCP tool result as a value agent code can use (and the workspace can keep): the `structuredContent` when
 * the server gave one; else its content blocks — a text block is its string, an image or audio block is
 * `{ type, mimeType, data }` (base64), an embedded resource `{ type: "resource", uri, mimeType?, text | blob }`,
 * a resource link `{ type: "resource_link", uri, name, … }`. One block is that value, several an array, none
 * `undefined`. An error result (`isError`) is thrown as an `McpToolError` carrying the server's text. Only the
 * fields named here are copied: a result is the server's text, read as hostile input.
 */
import { McpToolError } from "../errors/mcp-tool-error.ts";
import { isPlainObject } from "../tools/is-plain-object.ts";
import { kindOf } from "../tools/with-article.ts";

/** An image or audio block as a workspace value. */
export interface McpMedia {
  type: "image" | "audio";
  mimeType: string;
  /** Base64. */
  data: string;
}

/** The value of a tool call's result; throws `McpToolError` for an error result. */
export function valueOfResult(result: unknown, call: { server: string; toolName: string }): unknown {
  if (!isPlainObject(result)) throw new McpToolError({ ...call, text: `the server's result is not an object (got ${kindOf(result)})` });
  const blocks = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = blocks.map((block) => (isPlainObject(block) && typeof block.text === "string" ? block.text : "")).filter(Boolean).join("\n");
    throw new McpToolError({ ...call, text });
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return jsonCopy(result.structuredContent);
  // An old server's `toolResult` (protocol 2024-10-07).
  if (!Array.isArray(result.content) && "toolResult" in result) return jsonCopy(result.toolResult);
  const values = blocks.map(blockValue);
  return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
}

function blockValue(block: unknown): unknown {
  if (!isPlainObject(block)) return undefined;
  const text = (key: string) => (typeof block[key] === "string" ? (block[key] as string) : undefined);
  switch (block.type) {
    case "text":
      return text("text") ?? "";
    case "image":
    case "audio":
      return { type: block.type, mimeType: text("mimeType") ?? "application/octet-stream", data: text("data") ?? "" } satisfies McpMedia;
    case "resource": {
      const resource = isPlainObject(block.resource) ? block.resource : {};
      const field = (key: string) => (typeof resource[key] === "string" ? { [key]: resource[key] as string } : {});
      return { type: "resource", ...field("uri"), ...field("mimeType"), ...field("text"), ...field("blob") };
    }
    case "resource_link": {
      const field = (key: string) => (text(key) === undefined ? {} : { [key]: text(key)! });
      return { type: "resource_link", ...field("uri"), ...field("name"), ...field("title"), ...field("mimeType"), ...field("description") };
    }
    default:
      return { type: typeof block.type === "string" ? block.type : "unknown", ...jsonCopyObject(block) };
  }
}

/** A JSON value copied through JSON (no getters, prototypes or cycles survive). */
function jsonCopy(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return undefined;
  }
}

function jsonCopyObject(value: Record<string, unknown>): Record<string, unknown> {
  const copy = jsonCopy(value);
  return isPlainObject(copy) ? copy : {};
}
