/**
 * The agent tool `steer`, beside `chat`: queues a user message into a conversation whose `chat`
 * run is going on. By default it is delivered between two tool calls of the current turn (the
 * turn's remaining calls are skipped, with a result saying why) and the model reads it next;
 * with `followUp: true` it waits until the agent would otherwise stop.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { keyId, type KeyPolicy } from "../shared/keys.ts";
import type { ConversationRuns } from "./conversation-runs.ts";

export const STEER_TOOL_NAME = "steer";

export interface SteerToolDeps {
  runs: ConversationRuns;
  key?: KeyPolicy;
}

export const CONVERSATION_ID = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, "expected 1 to 128 letters, digits or . _ : -");

const inputSchema = z.strictObject({
  conversation: CONVERSATION_ID,
  message: z.string().min(1),
  followUp: z.boolean().optional(),
});

export const steerToolDefinition: Tool = {
  name: STEER_TOOL_NAME,
  title: "Steer a running chat",
  description:
    "Sends a message to a conversation whose `chat` call is still running. It reaches the model between two tool calls " +
    "(the rest of that turn's tool calls are skipped) — or, with followUp, only once the agent would otherwise answer.",
  inputSchema: {
    type: "object",
    properties: {
      conversation: { type: "string", description: "The conversation id the running `chat` call was given (or returned)." },
      message: { type: "string", description: "What to tell the agent." },
      followUp: { type: "boolean", description: "Deliver only when the agent would otherwise stop (default false: at once, between tool calls)." },
    },
    required: ["conversation", "message"],
    additionalProperties: false,
  },
  annotations: { title: "Steer a running chat", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

/** The tenant of a conversation: the digest of the session's key, as for /v1 stored state. */
export function tenantOfKey(key: KeyPolicy | undefined): string {
  return key ? keyId(key) : "anonymous";
}

export function runSteerTool(args: unknown, deps: SteerToolDeps): CallToolResult {
  const parsed = inputSchema.safeParse(args ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    return { content: [{ type: "text", text: `Invalid arguments for steer: ${problems}` }], isError: true };
  }
  const { conversation, message, followUp } = parsed.data;
  const kind = followUp ? "follow_up" : "steer";
  if (!deps.runs.queue(tenantOfKey(deps.key), conversation, kind, message)) {
    return {
      content: [{ type: "text", text: `Conversation "${conversation}" has no chat run going on on this gateway: send the message with chat (conversation "${conversation}") instead.` }],
      isError: true,
    };
  }
  const when = followUp ? "when the agent would otherwise answer" : "between the running turn's tool calls (its remaining calls are skipped), or before it answers";
  return { content: [{ type: "text", text: `Queued for conversation "${conversation}": delivered ${when}.` }], structuredContent: { conversation, queued: kind } };
}
