/**
 * `POST /v1/messages/count_tokens`: the input tokens a Messages request would use, the gateway's
 * MCP tools included. Forwarded to an Anthropic upstream (its own count, of exactly what the
 * gateway would send it); for every other provider an estimate (core/token-estimate.ts).
 */
import type { Context } from "hono";
import { estimateMessageTokens, estimateToolTokens } from "../../../core/token-estimate.ts";
import { describeIssues } from "../../../core/zod-issues.ts";
import { invalidRequest } from "../../http/errors.ts";
import { resolveModel } from "../../routing/resolve-model.ts";
import type { ChatDeps } from "../../shared/deps.ts";
import { readJson, tenantOf } from "../../shared/handler.ts";
import { callerKey } from "../../http/auth.ts";
import { checkModel, checkSelection, keyTools, policyOf } from "../../shared/keys.ts";
import { selectServers } from "../../shared/prepare.ts";
import { countTokensRequestSchema } from "./request-schema.ts";
import { toNeutralRequest } from "./to-neutral.ts";

export function countTokensHandler(deps: ChatDeps) {
  return async (c: Context): Promise<Response> => {
    const parsed = countTokensRequestSchema.safeParse(await readJson(c, deps.config.gateway));
    if (!parsed.success) throw invalidRequest(describeIssues(parsed.error.issues));
    const body = parsed.data;
    const { request } = toNeutralRequest(body, (name) => c.req.header(name));
    const key = policyOf(deps.config, callerKey(c));
    checkModel(key, body.model);
    checkSelection(key, c.req.header("x-mcp-servers"), undefined);
    const model = resolveModel(body.model, deps.providers, deps.config.models);
    const keyed = keyTools(deps.tools, key);
    const gatewayTools = keyed.select(selectServers(c.req.header("x-mcp-servers"), model, keyed.serverNames())).definitions(model.provider.schemaTarget);
    const clientTools = request.tools ?? [];
    const clientNames = new Set(clientTools.map((tool) => tool.name));
    const tools = [...gatewayTools.filter((tool) => !clientNames.has(tool.name)), ...clientTools];
    const messages = await deps.hiddenSteps.restore(tenantOf(c), request.messages);
    const adapter = model.provider.adapter;
    if (adapter.countTokens) {
      return c.json({ input_tokens: await adapter.countTokens({ ...request, messages, tools, model: model.modelId }) });
    }
    const offered = tools.filter((tool) => !tool.deferred);
    return c.json({ input_tokens: estimateMessageTokens(messages) + estimateToolTokens(offered) });
  };
}
