/**
 * Approvals for the `chat` tool: a call the tool policy wants approved is put to the person
 * behind the MCP client as a form elicitation (yes/no, with the tool and its arguments). Accepted
 * runs it; declined, cancelled, or a client that cannot be asked, and the model reads why.
 */
import type { ToolCallBlock } from "../../core/index.ts";
import type { ApprovalAsker } from "../shared/loop-setup.ts";
import { DECLINED, NEEDS_APPROVAL } from "../shared/tool-policy.ts";

/** What the client answered (MCP's ElicitResult, the fields read here). */
export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown> | undefined;
}

/** Sends a form elicitation to the client of the `chat` call; undefined when it cannot take one. */
export type Elicit = (params: Record<string, unknown>, signal: AbortSignal) => Promise<ElicitAnswer>;

const ARGUMENT_CHARS = 2_000;

export function approvalRequest(call: ToolCallBlock): Record<string, unknown> {
  const args = call.rawArguments.length > ARGUMENT_CHARS ? `${call.rawArguments.slice(0, ARGUMENT_CHARS)}…` : call.rawArguments;
  return {
    mode: "form",
    message: `The model wants to run the tool "${call.name}" with the arguments ${args}. The gateway's tool policy asks for your approval. Run it?`,
    requestedSchema: {
      type: "object",
      properties: { approve: { type: "boolean", title: "Run this tool call", description: `Run "${call.name}" once, with these arguments`, default: false } },
      required: ["approve"],
    },
  };
}

/** An ApprovalAsker over elicitation (or, without one, the refusal that says no one could be asked). */
export function elicitingApprovals(elicit: Elicit | undefined, signal: AbortSignal): ApprovalAsker {
  return async (call) => {
    if (!elicit) return NEEDS_APPROVAL(call.name);
    try {
      const answer = await elicit(approvalRequest(call), signal);
      return answer.action === "accept" && answer.content?.["approve"] === true ? true : DECLINED(call.name);
    } catch (error) {
      if (signal.aborted) throw error;
      return `${NEEDS_APPROVAL(call.name)} (Asking the user failed: ${error instanceof Error ? error.message : String(error)})`;
    }
  };
}
