/** The OpenAI Chat Completions front door: `POST /v1/chat/completions`. */
import { randomHex } from "../../../core/random-id.ts";
import { describeIssues } from "../../../core/zod-issues.ts";
import { invalidRequest } from "../../http/errors.ts";
import type { Door, ParsedRequest } from "../../shared/door.ts";
import { checkMessageCount } from "../../shared/prepare.ts";
import type { GatewayConfig } from "../../../core/config/index.ts";
import { chatCompletionRequestSchema, type ChatCompletionRequest } from "./request-schema.ts";
import { toChatCompletion } from "./to-completion.ts";
import { toNeutralRequest } from "./to-neutral.ts";
import { ChatCompletionsWriter } from "./writer.ts";

export interface ChatCompletionsRequest extends ParsedRequest {
  body: ChatCompletionRequest;
  /** `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean;
}

export function validateBody(json: unknown): ChatCompletionRequest {
  const parsed = chatCompletionRequestSchema.safeParse(json);
  if (!parsed.success) throw invalidRequest(describeIssues(parsed.error.issues));
  return parsed.data;
}

export function parseChatCompletion(json: unknown, config: GatewayConfig): ChatCompletionsRequest {
  // Counted before the full validation, which would otherwise walk every message first.
  checkMessageCount((json as { messages?: unknown } | null)?.messages, config.gateway.maxMessages, "messages");
  const body = validateBody(json);
  return {
    model: body.model,
    request: toNeutralRequest(body),
    stream: body.stream === true,
    body,
    includeUsage: body.stream_options?.include_usage === true,
  };
}

/** A fresh completion id and creation time, as OpenAI gives them. */
export function newCompletionMeta(): { id: string; created: number } {
  return { id: `chatcmpl-${randomHex()}`, created: Math.floor(Date.now() / 1000) };
}

export function chatCompletionsDoor(config: GatewayConfig): Door<ChatCompletionsRequest> {
  return {
    label: "chat completion",
    parse: (json) => parseChatCompletion(json, config),
    respond(outcome, prepared) {
      const meta = newCompletionMeta();
      return {
        // The model that answered (after a fallback, not the alias's first).
        body: toChatCompletion(outcome, meta.id, outcome.last.model, meta.created),
        headers: { "x-mcp-gateway-stop-reason": outcome.stopReason },
      };
    },
    writer: (prepared) => new ChatCompletionsWriter(newCompletionMeta(), prepared.model.requested, prepared.parsed.includeUsage, prepared.parsed.loop?.toolEvents === true),
  };
}
