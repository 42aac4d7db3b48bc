/** The Anthropic Messages front door: `POST /v1/messages` (Claude Code and every Anthropic client). */
import { randomHex } from "../../../core/random-id.ts";
import type { Context } from "hono";
import { GatewayError } from "../../../core/index.ts";
import type { GatewayConfig } from "../../../core/config/index.ts";
import { describeIssues } from "../../../core/zod-issues.ts";
import { invalidRequest } from "../../http/errors.ts";
import type { ProviderEntry } from "../../routing/providers.ts";
import type { Door, ParsedRequest, PreparedRequest } from "../../shared/door.ts";
import { checkMessageCount } from "../../shared/prepare.ts";
import type { IsAnthropic } from "./answer-blocks.ts";
import type { Dropped } from "./content.ts";
import { messagesRequestSchema, type MessagesRequestBody } from "./request-schema.ts";
import { toAnthropicMessage } from "./to-message.ts";
import { toNeutralRequest } from "./to-neutral.ts";
import { MessagesWriter } from "./writer.ts";

export interface MessagesRequest extends ParsedRequest {
  body: MessagesRequestBody;
  serverTools: string[];
  dropped: Dropped;
}

export function validateMessagesBody(json: unknown): MessagesRequestBody {
  const parsed = messagesRequestSchema.safeParse(json);
  if (!parsed.success) throw invalidRequest(describeIssues(parsed.error.issues));
  return parsed.data;
}

export function parseMessages(json: unknown, headers: (name: string) => string | undefined, config: GatewayConfig): MessagesRequest {
  checkMessageCount((json as { messages?: unknown } | null)?.messages, config.gateway.maxMessages, "messages");
  const body = validateMessagesBody(json);
  const { request, serverTools, dropped } = toNeutralRequest(body, headers);
  return { model: body.model, request, stream: body.stream === true, body, serverTools, dropped };
}

/**
 * Fits the request to a provider that does not speak Anthropic's protocol: Anthropic's server
 * tools and the blocks the neutral model cannot hold are left out, never silently (a warning
 * header and log line name each); a request that forces a server tool is refused.
 */
export function fitToProvider(prepared: PreparedRequest<MessagesRequest>): void {
  const provider = prepared.model.provider;
  if (provider.type === "anthropic") return;
  const { body, serverTools, dropped } = prepared.parsed;
  const forced = body.tool_choice?.type === "tool" ? body.tool_choice.name : undefined;
  if (forced !== undefined && serverTools.includes(forced)) {
    throw GatewayError.invalidRequest(
      `tool_choice forces "${forced}", one of Anthropic's server tools, which provider "${provider.name}" cannot run`,
      "tool_choice.name",
      "server_tool_not_supported",
    );
  }
  for (const name of serverTools) prepared.warnings.push(`server tool "${name}" left out: provider "${provider.name}" cannot run Anthropic's server tools`);
  for (const type of dropped) prepared.warnings.push(`"${type}" content left out: provider "${provider.name}" cannot take it`);
}

export function isAnthropicProvider(providers: ReadonlyMap<string, ProviderEntry>): IsAnthropic {
  return (origin) => providers.get(origin)?.type === "anthropic";
}

export function newMessageId(): string {
  return `msg_${randomHex()}`;
}

export function messagesDoor(config: GatewayConfig, providers: ReadonlyMap<string, ProviderEntry>): Door<MessagesRequest> {
  const isAnthropic = isAnthropicProvider(providers);
  return {
    label: "messages",
    parse: (json, c: Context) => parseMessages(json, (name) => c.req.header(name), config),
    fit: fitToProvider,
    respond: (outcome, prepared) => ({
      body: toAnthropicMessage(outcome, newMessageId(), outcome.last.model, isAnthropic),
      headers: { "x-mcp-gateway-stop-reason": outcome.stopReason },
    }),
    writer: (prepared) => new MessagesWriter(newMessageId(), prepared.model.requested, isAnthropic, prepared.parsed.loop?.toolEvents === true),
  };
}
