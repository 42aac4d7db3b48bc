/**
 * Anthropic's tool search, for models that have none. Claude Code sends most tools with
 * `defer_loading: true` beside a search tool; Anthropic shows the model only the others, and
 * adds a deferred tool once a `tool_reference` to it came back in a tool result. Any other
 * model would see either no tools or all of them, so the gateway does the same: a deferred
 * tool is offered from the first `tool_reference` to it on.
 */
import { isCustomTool, type CountTokensBody, type WireBlock } from "./request-schema.ts";

function referencesIn(blocks: readonly WireBlock[] | string, into: Set<string>): void {
  if (typeof blocks === "string") return;
  for (const block of blocks) {
    if (block.type === "tool_reference") into.add(String(block["tool_name"]));
    const content = block.type === "tool_result" ? block["content"] : undefined;
    if (Array.isArray(content)) referencesIn(content as WireBlock[], into);
  }
}

/** Names of the tools that have appeared in a `tool_reference`. */
export function referencedTools(body: CountTokensBody): Set<string> {
  const names = new Set<string>();
  for (const message of body.messages) referencesIn(message.content, names);
  return names;
}

/** The client's deferred tools not loaded yet: not offered to the model. */
export function deferredTools(body: CountTokensBody): Set<string> {
  const deferred = (body.tools ?? []).filter((tool) => isCustomTool(tool) && tool.defer_loading === true);
  if (deferred.length === 0) return new Set();
  const loaded = referencedTools(body);
  return new Set(deferred.map((tool) => tool.name).filter((name) => !loaded.has(name)));
}
