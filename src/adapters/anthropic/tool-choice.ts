import type { ChatRequest } from "../../core/index.ts";
import type { WireToolChoice } from "./wire.ts";

/**
 * The neutral tool choice in Anthropic's terms. Omitted without tools (a tool_choice without tools
 * is an error on several providers and means nothing). With thinking on, Anthropic rejects forced
 * tool use ("Thinking may not be enabled when tool_choice forces tool use."), so `required` and a
 * named tool are relaxed to `auto`.
 */
export function toWireToolChoice(request: ChatRequest, thinking: boolean): WireToolChoice | undefined {
  if (!request.tools?.length) return undefined;
  const serial = request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  const choice = request.toolChoice ?? (request.parallelToolCalls === false ? { type: "auto" as const } : undefined);
  switch (choice?.type) {
    case undefined:
      return undefined;
    case "none":
      return { type: "none" };
    case "auto":
      return { type: "auto", ...serial };
    case "required":
      return thinking ? { type: "auto", ...serial } : { type: "any", ...serial };
    case "tool":
      return thinking ? { type: "auto", ...serial } : { type: "tool", name: choice.name, ...serial };
  }
}
