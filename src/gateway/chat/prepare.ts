/**
 * From a raw request body to everything the loop needs: validated, routed to a provider,
 * tools selected, hidden steps restored, alias defaults applied. Every refusal is a
 * GatewayError naming the bad field.
 */
import { GatewayError, type ChatRequest, type Message, type ToolSet } from "../../core/index.ts";
import { describeIssues } from "../../core/zod-issues.ts";
import { invalidRequest } from "../http/errors.ts";
import { chatCompletionRequestSchema, type ChatCompletionRequest } from "../openai/request-schema.ts";
import { toNeutralRequest } from "../openai/to-neutral.ts";
import { resolveModel, type ResolvedModel } from "../routing/resolve-model.ts";
import type { ChatDeps } from "./context.ts";

export interface PreparedChat {
  /** Who is asking (a digest of the API key, or "anonymous"): scopes the stored steps. */
  tenant: string;
  body: ChatCompletionRequest;
  model: ResolvedModel;
  request: ChatRequest;
  tools: ToolSet;
  stream: boolean;
  includeUsage: boolean;
}

export function validateBody(json: unknown): ChatCompletionRequest {
  const parsed = chatCompletionRequestSchema.safeParse(json);
  if (!parsed.success) throw invalidRequest(describeIssues(parsed.error.issues));
  return parsed.data;
}

/**
 * `x-mcp-servers: a,b` or `none`; otherwise the alias's selection; otherwise every server. The
 * header only narrows: an alias's `mcpServers` is a boundary it cannot widen.
 */
export function selectServers(header: string | undefined, model: ResolvedModel, known: readonly string[]): readonly string[] | undefined {
  const allowed = model.alias?.mcpServers;
  if (header === undefined || header.trim() === "") return allowed;
  if (header.trim().toLowerCase() === "none") return [];
  const names = [...new Set(header.split(",").map((s) => s.trim()).filter((s) => s !== ""))];
  const outside = allowed ? names.filter((name) => known.includes(name) && !allowed.includes(name)) : [];
  if (outside.length > 0) {
    throw GatewayError.invalidRequest(
      `x-mcp-servers names servers outside the model "${model.requested}"'s selection: ${outside.join(", ")} (allowed: ${allowed!.join(", ") || "none"})`,
      "x-mcp-servers",
      "mcp_server_not_allowed",
    );
  }
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw GatewayError.invalidRequest(
      `x-mcp-servers names unknown MCP servers: ${unknown.join(", ")} (configured: ${known.join(", ") || "none"})`,
      "x-mcp-servers",
      "unknown_mcp_server",
    );
  }
  return names;
}

function withAliasDefaults(request: ChatRequest, model: ResolvedModel): ChatRequest {
  const alias = model.alias;
  if (!alias) return request;
  const messages: Message[] =
    alias.system && !request.messages.some((m) => m.role === "system")
      ? [{ role: "system", content: [{ type: "text", text: alias.system }] }, ...request.messages]
      : request.messages;
  return {
    ...request,
    messages,
    ...(request.temperature === undefined && alias.temperature !== undefined ? { temperature: alias.temperature } : {}),
    ...(request.maxTokens === undefined && alias.maxTokens !== undefined ? { maxTokens: alias.maxTokens } : {}),
  };
}

export async function prepareChat(json: unknown, serversHeader: string | undefined, tenant: string, deps: ChatDeps): Promise<PreparedChat> {
  // Counted before the full validation, which would otherwise walk every message first.
  const maxMessages = deps.config.gateway.maxMessages;
  const count = (json as { messages?: unknown } | null)?.messages;
  if (Array.isArray(count) && count.length > maxMessages) {
    throw GatewayError.invalidRequest(`Invalid request: messages: at most ${maxMessages} messages are accepted, got ${count.length}`, "messages", "too_many_messages");
  }
  const body = validateBody(json);
  const model = resolveModel(body.model, deps.providers, deps.config.models);
  const servers = selectServers(serversHeader, model, deps.tools.serverNames());
  const neutral = toNeutralRequest(body);
  const messages = await deps.hiddenSteps.restore(tenant, neutral.messages);
  return {
    tenant,
    body,
    model,
    request: withAliasDefaults({ ...neutral, messages, model: model.modelId }, model),
    tools: deps.tools.select(servers),
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
  };
}
