/**
 * Function names a provider refuses, renamed in the neutral request and restored in its result
 * and stream events: every adapter's one way of doing it (Anthropic always, the OpenAI-chat
 * adapter per its `functionNames` quirk), before any wire conversion, so whatever reads the
 * wire (quirk steps, printed tool calls) sees one consistent set of names.
 */
import type { ChatRequest, ChatResult, Message, StreamEvent, ToolCallBlock } from "../core/index.ts";
import { FunctionNameMap, type FunctionNameRules } from "./quirks/function-names.ts";

/** Every function name of the request: its tools, a forced choice, and the history's calls and results. */
function namesOf(request: ChatRequest): string[] {
  const names = (request.tools ?? []).map((tool) => tool.name);
  if (request.toolChoice?.type === "tool") names.push(request.toolChoice.name);
  for (const message of request.messages) {
    for (const block of message.content) {
      if (block.type === "tool_call" || (block.type === "tool_result" && block.name !== undefined)) names.push(block.name!);
    }
  }
  return names;
}

function renameMessage(message: Message, wire: (name: string) => string): Message {
  if (message.role === "assistant") {
    return { ...message, content: message.content.map((block) => (block.type === "tool_call" ? { ...block, name: wire(block.name) } : block)) };
  }
  if (message.role === "tool") {
    return { ...message, content: message.content.map((block) => (block.name === undefined ? block : { ...block, name: wire(block.name) })) };
  }
  return message;
}

function renameRequest(request: ChatRequest, names: FunctionNameMap): ChatRequest {
  const wire = (name: string) => names.wire(name);
  return {
    ...request,
    messages: request.messages.map((message) => renameMessage(message, wire)),
    ...(request.tools ? { tools: request.tools.map((tool) => ({ ...tool, name: wire(tool.name) })) } : {}),
    ...(request.toolChoice?.type === "tool" ? { toolChoice: { type: "tool" as const, name: wire(request.toolChoice.name) } } : {}),
  };
}

const restoreCall = (call: ToolCallBlock, names: FunctionNameMap): ToolCallBlock => ({ ...call, name: names.original(call.name) });

function restoreResult(result: ChatResult, names: FunctionNameMap): ChatResult {
  const content = result.message.content.map((block) => (block.type === "tool_call" ? restoreCall(block, names) : block));
  return { ...result, message: { ...result.message, content } };
}

function restoreEvent(event: StreamEvent, names: FunctionNameMap): StreamEvent {
  switch (event.type) {
    case "tool_call_start":
      return { ...event, name: names.original(event.name) };
    case "tool_call_end":
      return { ...event, call: restoreCall(event.call, names) };
    case "done":
      return { ...event, result: restoreResult(event.result, names) };
    default:
      return event;
  }
}

/** One request's renaming: the request to send, and the way back for what comes of it. */
export interface RenamedRequest {
  request: ChatRequest;
  result(result: ChatResult): ChatResult;
  event(event: StreamEvent): StreamEvent;
}

const UNCHANGED = { result: (result: ChatResult) => result, event: (event: StreamEvent) => event };

/** Renames the names `rules` refuses (none without rules); when none is, the request and its answers pass untouched. */
export function renameFunctions(request: ChatRequest, rules: FunctionNameRules | undefined): RenamedRequest {
  if (rules === undefined) return { request, ...UNCHANGED };
  const all = namesOf(request);
  // Most requests have no name the provider refuses (or no names at all): no map to build.
  if (all.every((name) => rules.valid.test(name))) return { request, ...UNCHANGED };
  const names = new FunctionNameMap(all, rules);
  if (names.renamed === 0) return { request, ...UNCHANGED };
  return {
    request: renameRequest(request, names),
    result: (result) => restoreResult(result, names),
    event: (event) => restoreEvent(event, names),
  };
}
