import { createHash } from "node:crypto";

/** Anthropic's pattern for `tool_use.id` (and so for `tool_result.tool_use_id`). */
const VALID_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool-call id Anthropic accepts. Ids from other providers (OpenAI `call_…`, ids with dots or
 * colons from other gateways) are rewritten deterministically: invalid characters become `_` and
 * a short hash of the original keeps two ids that differ only in those characters apart. Pure, so
 * a call and its result map to the same id in every request without storing anything.
 */
export function toAnthropicToolId(id: string): string {
  if (VALID_ID.test(id)) return id;
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 8);
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned === "" ? `toolu_${hash}` : `${cleaned}_${hash}`;
}
