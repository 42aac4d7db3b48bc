/**
 * The neutral conversation as Responses `input` items. Nothing is left to server state (the
 * adapter always sends `store: false`): this provider's own reasoning items and hosted tool items
 * go back verbatim from their provider data, in their place, so a function call is preceded by the
 * reasoning item it came with — OpenAI refuses a call whose reasoning is missing.
 */
import type { AssistantMessage, Message, ReasoningBlock, TextBlock, ToolCallBlock, ToolResultBlock } from "../../core/index.ts";
import { isJsonObject, type JsonObject } from "../../core/json-object.ts";
import { pairToolResults } from "../tool-pairing.ts";
import { customToolOutput, inputPart, toolOutput } from "./content.ts";
import type { AssistantMessageInput, WireInputItem } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

export interface InputContext {
  /** The provider id: only items it produced go back. */
  origin: string;
  /** Names of the request's freeform tools: their calls are custom tool calls. */
  freeform: ReadonlySet<string>;
}

type Phase = AssistantMessageInput["phase"];

/** The `phase` this provider gave an answer's text (commentary, final_answer), to send back with it. */
function phaseOf(block: TextBlock, origin: string): Phase | undefined {
  if (block.providerData?.origin !== origin) return undefined;
  const phase = block.providerData.data["phase"];
  return phase === "commentary" || phase === "final_answer" ? phase : undefined;
}

/**
 * A reasoning item of this provider, if it can go back. Without `encrypted_content` (or readable
 * `content`, as open-weight servers send) an item only names server state, which `store: false`
 * never kept: OpenAI would answer "Item with id 'rs_…' not found". Other providers' reasoning
 * is never sent.
 */
function reasoningItem(block: ReasoningBlock, origin: string): JsonObject | undefined {
  if (block.providerData?.origin !== origin) return undefined;
  const item = block.providerData.data["item"];
  if (!isJsonObject(item) || item["type"] !== "reasoning") return undefined;
  const replayable = typeof item["encrypted_content"] === "string" || (Array.isArray(item["content"]) && item["content"].length > 0);
  return replayable ? item : undefined;
}

/** The call's own argument text when it is a valid JSON object, so the model sees what it wrote. */
function wireArguments(call: ToolCallBlock): string {
  if (call.rawArguments.trim() !== "") {
    try {
      if (isJsonObject(JSON.parse(call.rawArguments))) return call.rawArguments;
    } catch {
      // unparsable: send the parsed arguments instead
    }
  }
  return JSON.stringify(call.arguments);
}

/** A freeform call's text is `arguments.input` (see ToolDefinition.freeform). */
function customInput(call: ToolCallBlock): string {
  const input = call.arguments["input"];
  return typeof input === "string" ? input : JSON.stringify(call.arguments);
}

function callItem(call: ToolCallBlock, context: InputContext): WireInputItem {
  if (context.freeform.has(call.name)) return { type: "custom_tool_call", call_id: call.id, name: call.name, input: customInput(call) };
  return { type: "function_call", call_id: call.id, name: call.name, arguments: wireArguments(call) };
}

/** An answer's blocks as items, in their order; neighbouring texts of one phase share a message. */
function assistantItems(message: AssistantMessage, context: InputContext, customCalls: Set<string>): WireInputItem[] {
  const items: WireInputItem[] = [];
  let text: AssistantMessageInput | undefined;
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text === "") continue;
      const phase = phaseOf(block, context.origin);
      if (text && text.phase === phase) {
        text.content.push({ type: "output_text", text: block.text });
        continue;
      }
      text = { type: "message", role: "assistant", content: [{ type: "output_text", text: block.text }], ...(phase ? { phase } : {}) };
      items.push(text);
      continue;
    }
    text = undefined;
    if (block.type === "reasoning") {
      const item = reasoningItem(block, context.origin);
      if (item) items.push(item);
    } else if (block.type === "tool_call") {
      if (context.freeform.has(block.name)) customCalls.add(block.id);
      items.push(callItem(block, context));
    } else if (block.providerData.origin === context.origin && isJsonObject(block.providerData.data["item"])) {
      // A hosted tool's item (web_search_call, …): it ran on the provider's side, and goes back as it came.
      items.push(block.providerData.data["item"]);
    }
  }
  return items;
}

function outputItem(result: ToolResultBlock, custom: boolean): WireInputItem {
  if (custom) return { type: "custom_tool_call_output", call_id: result.callId, output: customToolOutput(result) };
  return { type: "function_call_output", call_id: result.callId, output: toolOutput(result) };
}

const joinText = (blocks: TextBlock[]): string => blocks.map((block) => block.text).join("\n\n");

/**
 * The input items, with the call/output pairing repaired (tool-pairing.ts): the API refuses a
 * call without its output ("No tool output found for function call …"). Message names have no
 * place in the Responses API and are left out.
 */
export function toInputItems(messages: readonly Message[], context: InputContext): WireInputItem[] {
  // Outputs answer a custom call with a custom output: the ids of the calls sent as such.
  const customCalls = new Set<string>();
  return flatMapped(pairToolResults(messages), (message): WireInputItem[] => {
    switch (message.role) {
      case "system": {
        const text = joinText(message.content);
        return text === "" ? [] : [{ type: "message", role: "system", content: text }];
      }
      case "user":
        return message.content.length === 0 ? [] : [{ type: "message", role: "user", content: message.content.map(inputPart) }];
      case "assistant":
        return assistantItems(message, context, customCalls);
      case "tool":
        return message.content.map((result) => outputItem(result, customCalls.has(result.callId)));
    }
  });
}
