/**
 * MCP approvals the OpenAI way: a call of an MCP tool that needs approval ended the last answer
 * with an `mcp_approval_request`; the client's `mcp_approval_response` says yes or no. Before the
 * loop goes on, an approved call runs (and shows as an `mcp_call` with its `approval_request_id`),
 * a declined one gets an error result the model reads.
 */
import type { ToolCallBlock } from "../../../core/index.ts";
import type { PreparedRequest } from "../../shared/door.ts";
import type { ResponsesRequest } from "./door.ts";
import { mcpCallItem, type ItemContext, type OutputItem } from "./output-items.ts";

const DECLINED = "The user declined to run this tool call.";
const UNKNOWN = "There is no pending approval request with this id.";
const NOT_ALLOWED = "This tool is not among the tools this request allows (allowed_tools).";

function findCall(prepared: PreparedRequest<ResponsesRequest>, id: string): ToolCallBlock | undefined {
  for (const message of prepared.request.messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (block.type === "tool_call" && block.id === id) return block;
  }
  return undefined;
}

export async function runApprovals(prepared: PreparedRequest<ResponsesRequest>, context: ItemContext, signal: AbortSignal): Promise<OutputItem[]> {
  const items: OutputItem[] = [];
  for (const approval of prepared.parsed.approvals) {
    const call = findCall(prepared, approval.callId);
    const slot = approval.result;
    // An approval runs only a call the request could have made itself: its tools, its servers.
    const refusal = !call ? UNKNOWN : !prepared.tools.has(call.name) ? NOT_ALLOWED : !approval.approve ? DECLINED : undefined;
    if (refusal || !call) {
      slot.content = [{ type: "text", text: refusal ?? UNKNOWN }];
      slot.isError = true;
      continue;
    }
    const result = await prepared.tools.call(call, { signal });
    slot.name = call.name;
    slot.content = result.content;
    slot.isError = result.isError;
    items.push(mcpCallItem({ call, result }, context, undefined, approval.callId));
  }
  return items;
}
