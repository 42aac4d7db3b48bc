/**
 * The output items of a response, one builder per kind: reasoning (its provider data in
 * `encrypted_content`, for the client to echo), the assistant's message, the client's calls
 * (`function_call` with its `namespace`, `custom_tool_call`, `tool_search_call`), MCP approval
 * requests, the MCP calls the gateway ran (`mcp_call`), the tools of requested MCP servers
 * (`mcp_list_tools`), and hosted tool items a Responses upstream ran. Shared by the whole answer
 * and the stream writer, so both say the same.
 */
import { randomHex } from "../../../core/random-id.ts";
import type { ReasoningBlock, ToolCallBlock, ToolDefinition } from "../../../core/index.ts";
import type { LoopOutcome, ToolExecution } from "../../../loop/index.ts";
import { argumentText } from "../../shared/argument-relay.ts";
import { encodeProviderData } from "../../shared/provider-data-token.ts";
import type { ClientToolKind } from "./tools.ts";

export type OutputItem = { type: string; id: string; [key: string]: unknown };

export const newId = (prefix: string) => `${prefix}_${randomHex()}`;

export interface ItemContext {
  /** How each of the client's tools' calls go back (by neutral name). */
  kinds: ReadonlyMap<string, ClientToolKind>;
  /** MCP tools whose calls wait for the client's approval (by neutral name). */
  approvals: ReadonlySet<string>;
  /** Whether the client asked for `reasoning.encrypted_content`. */
  encrypted: boolean;
  /** Whether a provider (by config name) speaks the Responses protocol: its hosted items go out as they are. */
  isResponses(origin: string): boolean;
  /** The server and original name of a gateway tool. */
  origin(name: string): { server: string; tool: string };
}

export function reasoningItem(block: ReasoningBlock, context: ItemContext, id?: string): OutputItem {
  const upstream = block.providerData?.data["item"] as { id?: unknown } | undefined;
  const itemId = id ?? (typeof upstream?.id === "string" && context.isResponses(block.providerData!.origin) ? upstream.id : newId("rs"));
  return {
    type: "reasoning",
    id: itemId,
    summary: block.text === "" ? [] : [{ type: "summary_text", text: block.text }],
    ...(context.encrypted ? { encrypted_content: encodeProviderData(block.providerData) } : {}),
  };
}

export function messageItem(text: string, id = newId("msg")): OutputItem {
  return { type: "message", id, status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] };
}

/** A call of one of the client's tools, as the client declared it; `undefined` for an MCP call. */
export function clientCallItem(call: ToolCallBlock, context: ItemContext, id?: string): OutputItem | undefined {
  if (context.approvals.has(call.name)) {
    const { server, tool } = context.origin(call.name);
    return { type: "mcp_approval_request", id: call.id, server_label: server, name: tool, arguments: argumentText(call) };
  }
  const kind = context.kinds.get(call.name);
  switch (kind?.kind) {
    case undefined:
      return undefined;
    case "function":
      return { type: "function_call", id: id ?? newId("fc"), call_id: call.id, name: kind.name, ...(kind.namespace ? { namespace: kind.namespace } : {}), arguments: argumentText(call), status: "completed" };
    case "custom":
      return { type: "custom_tool_call", id: id ?? newId("ctc"), call_id: call.id, name: kind.name, ...(kind.namespace ? { namespace: kind.namespace } : {}), input: String(call.arguments["input"] ?? ""), status: "completed" };
    case "tool_search":
      return { type: "tool_search_call", id: id ?? newId("tsc"), call_id: call.id, execution: "client", arguments: call.arguments, status: "completed" };
  }
}

function resultText(execution: ToolExecution): string {
  return execution.result.content.map((part) => (part.type === "text" ? part.text : part.type === "resource" ? (part.text ?? part.uri) : `[${part.type}]`)).join("\n");
}

export function mcpCallItem(execution: Pick<ToolExecution, "call" | "result">, context: ItemContext, id = newId("mcp"), approvalRequestId?: string): OutputItem {
  const { server, tool } = context.origin(execution.call.name);
  const text = resultText(execution as ToolExecution);
  const failed = execution.result.isError;
  return {
    type: "mcp_call",
    id,
    server_label: server,
    name: tool,
    arguments: argumentText(execution.call),
    output: failed ? null : text,
    error: failed ? text : null,
    status: failed ? "failed" : "completed",
    ...(approvalRequestId ? { approval_request_id: approvalRequestId } : {}),
  };
}

export function listToolsItem(server: string, tools: readonly ToolDefinition[], context: ItemContext): OutputItem {
  return {
    type: "mcp_list_tools",
    id: newId("mcpl"),
    server_label: server,
    tools: tools.map((tool) => ({ name: context.origin(tool.name).tool, description: tool.description ?? null, input_schema: tool.inputSchema, annotations: null })),
  };
}

/** Every item of the loop's outcome, in order: per turn its reasoning, text, then its calls. */
export function outcomeItems(outcome: LoopOutcome, context: ItemContext): OutputItem[] {
  const executions = new Map(outcome.tools.map((execution) => [execution.call.id, execution]));
  const clientCalls = new Set(outcome.clientToolCalls.map((call) => call.id));
  const items: OutputItem[] = [];
  for (const message of outcome.newMessages) {
    if (message.role !== "assistant") continue;
    let text = "";
    const calls: OutputItem[] = [];
    for (const block of message.content) {
      if (block.type === "reasoning") items.push(reasoningItem(block, context));
      else if (block.type === "text") text += block.text;
      else if (block.type === "opaque" && context.isResponses(block.providerData.origin)) calls.push(block.providerData.data["item"] as OutputItem);
      else if (block.type === "tool_call") {
        const execution = executions.get(block.id);
        if (execution) calls.push(mcpCallItem(execution, context));
        else if (clientCalls.has(block.id)) {
          const item = clientCallItem(block, context);
          if (item) calls.push(item);
        }
      }
    }
    if (text !== "") items.push(messageItem(text));
    items.push(...calls);
  }
  return items;
}
