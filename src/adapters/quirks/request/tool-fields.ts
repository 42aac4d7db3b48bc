/** Tool-related body fields: what travels with the tools, and what a server refuses. */
import type { RequestStep } from "./context.ts";
import type { WireRequest } from "./wire.ts";

/** tool_choice and parallel_tool_calls are refused without tools; so is an empty tools array. */
export const stripToolFieldsWithoutTools: RequestStep = (body) => {
  if (body.tools?.length) return body;
  const { tools: _tools, tool_choice: _choice, parallel_tool_calls: _parallel, ...rest } = body;
  return rest as WireRequest;
};

/** "auto" is the default wherever tools are sent, so leaving it out changes nothing but the error. */
export const omitAutoToolChoice: RequestStep = (body) => {
  if (body.tool_choice !== "auto") return body;
  const { tool_choice: _choice, ...rest } = body;
  return rest as WireRequest;
};

/** `type: "function"` on every tool, also on tools that came in through `extra`. */
export const typeEveryTool: RequestStep = (body) =>
  body.tools ? { ...body, tools: body.tools.map((tool) => ({ ...tool, type: tool.type || "function" })) } : body;
