/**
 * Responses input items as neutral messages. The model's items between two turns of the user or
 * tools (reasoning, its message, its calls) make one assistant message; consecutive outputs make
 * one tool message. Items the neutral model cannot hold (hosted tool calls, `mcp_list_tools`)
 * are left out here and named in `dropped`.
 */
import { parseToolArguments } from "../../../adapters/tool-arguments.ts";
import type {
  AssistantContent,
  Message,
  ReasoningBlock,
  ToolResultBlock,
  ToolResultContent,
  UserContent,
} from "../../../core/index.ts";
import { imageFromUrl } from "../../shared/neutral-helpers.ts";
import { decodeProviderData, isGatewayToken } from "../../shared/provider-data-token.ts";
import type { InputItem } from "./request-schema.ts";
import { flatName, TOOL_SEARCH_NAME } from "./tools.ts";
import { flatMapped } from "../../../core/flat-mapped.ts";

/** Where a client's reasoning item made by OpenAI itself came from: not a provider name (those hold no ':'). */
export const CLIENT_ORIGIN = "client:openai-responses";

/** An MCP approval the client answered: its result is filled in once the call ran (or was declined). */
export interface Approval {
  callId: string;
  approve: boolean;
  /** The tool message's result block, in the conversation: completed before the loop starts. */
  result: ToolResultBlock;
}

export interface NeutralInput {
  messages: Message[];
  approvals: Approval[];
  dropped: Set<string>;
}

type Item<T extends string> = Extract<InputItem, { type: T }>;
type Part = { type: string; [key: string]: unknown };

function partContent(part: Part, dropped: Set<string>): UserContent[] {
  switch (part.type) {
    case "input_text":
    case "output_text":
      return [{ type: "text", text: String(part["text"]) }];
    case "refusal":
      return [{ type: "text", text: String(part["refusal"]) }];
    case "input_image": {
      const url = part["image_url"];
      if (typeof url !== "string") {
        dropped.add("input_image (file_id)");
        return [];
      }
      const detail = part["detail"];
      return [{ ...imageFromUrl(url), ...(detail === "low" || detail === "high" || detail === "auto" ? { detail } : {}) }];
    }
    case "input_file": {
      const data = part["file_data"];
      if (typeof data === "string") {
        const match = /^data:([^;,]+);base64,(.*)$/s.exec(data);
        return [{ type: "resource", uri: `file:${String(part["filename"] ?? "attachment")}`, mimeType: match?.[1] ?? "application/octet-stream", blob: match?.[2] ?? data, ...(part["filename"] ? { name: String(part["filename"]) } : {}) }];
      }
      if (typeof part["file_url"] === "string") return [{ type: "resource", uri: part["file_url"], link: true }];
      dropped.add("input_file (file_id)");
      return [];
    }
    default:
      dropped.add(part.type);
      return [];
  }
}

function contentOf(content: string | Part[], dropped: Set<string>): UserContent[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : flatMapped(content, (part) => partContent(part, dropped));
}

function outputContent(output: string | Part[], dropped: Set<string>): ToolResultContent[] {
  return contentOf(output, dropped);
}

/** A reasoning item: the gateway's own token restores its provider data; OpenAI's is kept as it came. */
function reasoningBlock(item: Item<"reasoning">): ReasoningBlock {
  const text = (item.summary ?? []).map((part) => part.text).join("\n\n");
  const encrypted = item.encrypted_content;
  if (typeof encrypted === "string" && isGatewayToken(encrypted)) {
    const providerData = decodeProviderData(encrypted);
    return { type: "reasoning", text, ...(providerData ? { providerData } : {}) };
  }
  return { type: "reasoning", text, providerData: { origin: CLIENT_ORIGIN, data: { item } } };
}

function callBlock(id: string, name: string, raw: string): AssistantContent {
  const parsed = parseToolArguments(raw);
  return { type: "tool_call", id, name, arguments: parsed.arguments, rawArguments: raw, ...(parsed.error === undefined ? {} : { argumentsError: parsed.error }) };
}

function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value ?? {});
}

class Builder {
  readonly messages: Message[] = [];
  readonly approvals: Approval[] = [];
  readonly dropped = new Set<string>();
  private assistant: AssistantContent[] | undefined;
  private results: ToolResultBlock[] | undefined;
  /** Results of calls made in the open assistant turn (echoed `mcp_call`s): they follow the turn. */
  private pending: ToolResultBlock[] = [];
  /** Call id → tool name, for results that name their tool. */
  private readonly names = new Map<string, string>();

  system(text: string): void {
    this.close();
    this.messages.push({ role: "system", content: [{ type: "text", text }] });
  }

  user(content: UserContent[]): void {
    this.close();
    this.messages.push({ role: "user", content });
  }

  model(block: AssistantContent): void {
    if (this.results) this.close();
    // A later part of the turn (reasoning, the answer) after echoed MCP calls: their results come first.
    if (this.pending.length > 0 && block.type !== "tool_call") this.close();
    if (!this.assistant) {
      this.assistant = [];
      this.messages.push({ role: "assistant", content: this.assistant });
    }
    this.assistant.push(block);
    if (block.type === "tool_call") this.names.set(block.id, block.name);
  }

  result(callId: string, content: ToolResultContent[], isError = false): ToolResultBlock {
    if (!this.results) this.openResults();
    const block = this.resultBlock(callId, content, isError);
    this.results!.push(block);
    return block;
  }

  /** The result of a call the model's own turn carried out (an echoed `mcp_call`): after the turn. */
  laterResult(callId: string, content: ToolResultContent[], isError: boolean): void {
    this.pending.push(this.resultBlock(callId, content, isError));
  }

  private resultBlock(callId: string, content: ToolResultContent[], isError: boolean): ToolResultBlock {
    const name = this.names.get(callId);
    return { type: "tool_result", callId, ...(name === undefined ? {} : { name }), content, isError };
  }

  private openResults(): void {
    this.assistant = undefined;
    this.results = [...this.pending];
    this.pending = [];
    this.messages.push({ role: "tool", content: this.results });
  }

  /** Ends the open turn; results still waiting for it get their tool message. */
  close(): void {
    if (this.pending.length > 0) this.openResults();
    this.assistant = undefined;
    this.results = undefined;
  }
}

/** The gateway's name of a server's tool (its `prefix`, sanitizing and hashing applied). */
export type ToolNamer = (server: string, tool: string) => string;

function addItem(item: InputItem, into: Builder, nameOf: ToolNamer): void {
  if (item.type === undefined || item.type === "message") {
    const message = item as unknown as { role: string; content: string | Part[] };
    const content = contentOf(message.content, into.dropped);
    if (message.role === "system" || message.role === "developer") {
      into.system(content.map((c) => (c.type === "text" ? c.text : "")).join("\n"));
    } else if (message.role === "assistant") {
      for (const block of content) if (block.type === "text") into.model(block);
    } else {
      into.user(content);
    }
    return;
  }
  switch (item.type) {
    case "reasoning":
      into.model(reasoningBlock(item as Item<"reasoning">));
      return;
    case "function_call": {
      const call = item as Item<"function_call">;
      into.model(callBlock(call.call_id, flatName(call.namespace, call.name), call.arguments));
      return;
    }
    case "custom_tool_call": {
      const call = item as Item<"custom_tool_call">;
      into.model({ type: "tool_call", id: call.call_id, name: call.name, arguments: { input: call.input }, rawArguments: JSON.stringify({ input: call.input }) });
      return;
    }
    case "tool_search_call": {
      const call = item as Item<"tool_search_call">;
      into.model(callBlock(call.call_id, TOOL_SEARCH_NAME, argumentsText(call["arguments"])));
      return;
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      const output = item as Item<"function_call_output">;
      into.result(output.call_id, outputContent(output.output as string | Part[], into.dropped));
      return;
    }
    case "tool_search_output": {
      const output = item as Item<"tool_search_output">;
      const names = flatMapped(output.tools, (tool) => (Array.isArray(tool["tools"]) ? (tool["tools"] as { name: string }[]).map((t) => flatName(String(tool["name"]), t.name)) : [String(tool["name"])]));
      into.result(output.call_id, [{ type: "text", text: `Loaded tools: ${names.join(", ")}` }]);
      return;
    }
    case "mcp_call": {
      const call = item as Item<"mcp_call">;
      into.model(callBlock(call.id, nameOf(call.server_label, call.name), call.arguments));
      into.laterResult(call.id, [{ type: "text", text: call.error ?? call.output ?? "" }], Boolean(call.error));
      return;
    }
    case "mcp_approval_request": {
      const request = item as Item<"mcp_approval_request">;
      into.model(callBlock(request.id, nameOf(request.server_label, request.name), request.arguments));
      return;
    }
    case "mcp_approval_response": {
      const response = item as Item<"mcp_approval_response">;
      const result = into.result(response.approval_request_id, []);
      into.approvals.push({ callId: response.approval_request_id, approve: response.approve, result });
      return;
    }
    case "mcp_list_tools":
      return;
    default:
      into.dropped.add(item.type);
  }
}

export function toNeutralInput(instructions: string | null | undefined, input: string | readonly InputItem[] | undefined, nameOf: ToolNamer = flatName): NeutralInput {
  const builder = new Builder();
  if (instructions) builder.system(instructions);
  if (typeof input === "string") builder.user([{ type: "text", text: input }]);
  else for (const item of input ?? []) addItem(item, builder, nameOf);
  builder.close();
  return { messages: builder.messages, approvals: builder.approvals, dropped: builder.dropped };
}
