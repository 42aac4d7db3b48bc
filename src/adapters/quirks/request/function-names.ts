/** Renames functions Gemini refuses, everywhere a name appears in the request. */
import { FunctionNameMap } from "../function-names.ts";
import type { WireRequest, WireRequestMessage, WireToolChoice } from "./wire.ts";

/** Every function name of the request: tools, the forced choice, and calls in the history. */
export function functionNamesOf(body: WireRequest): string[] {
  const names = (body.tools ?? []).map((tool) => tool.function.name);
  const choice = body.tool_choice;
  if (typeof choice === "object" && choice.function) names.push(choice.function.name);
  for (const message of body.messages) for (const call of message.tool_calls ?? []) names.push(call.function.name);
  return names;
}

function renameMessage(message: WireRequestMessage, names: FunctionNameMap): WireRequestMessage {
  if (!message.tool_calls) return message;
  return {
    ...message,
    tool_calls: message.tool_calls.map((call) => ({ ...call, function: { ...call.function, name: names.wire(call.function.name) } })),
  };
}

function renameChoice(choice: WireToolChoice | undefined, names: FunctionNameMap): WireToolChoice | undefined {
  if (typeof choice !== "object" || !choice.function) return choice;
  return { ...choice, function: { name: names.wire(choice.function.name) } };
}

export function renameFunctions(body: WireRequest, names: FunctionNameMap): WireRequest {
  if (names.renamed === 0) return body;
  const renamed: WireRequest = {
    ...body,
    messages: body.messages.map((message) => renameMessage(message, names)),
    ...(body.tools ? { tools: body.tools.map((tool) => ({ ...tool, function: { ...tool.function, name: names.wire(tool.function.name) } })) } : {}),
  };
  const choice = renameChoice(body.tool_choice, names);
  return choice === undefined ? renamed : { ...renamed, tool_choice: choice };
}
