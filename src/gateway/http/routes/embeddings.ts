/**
 * `POST /v1/embeddings`, passed through to an OpenAI-protocol provider: clients configured with
 * one base URL call it beside the chat routes. Routed like them (`provider/model`, aliases and
 * their fallbacks, the keys and limits of /v1); the body goes as the client sent it but for the
 * model, and the provider's answer comes back as it is.
 */
import type { Context } from "hono";
import { z } from "zod";
import { GatewayError, type Usage } from "../../../core/index.ts";
import { describeIssues } from "../../../core/zod-issues.ts";
import { resolveModel } from "../../routing/resolve-model.ts";
import type { ChatDeps } from "../../shared/deps.ts";
import { readJson } from "../../shared/handler.ts";
import { checkModel, policyOf } from "../../shared/keys.ts";
import { callerKey } from "../auth.ts";
import { invalidRequest } from "../errors.ts";

const embeddingsRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()), z.array(z.number().int()), z.array(z.array(z.number().int()))]),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

/** The tokens an embeddings answer reports (`usage.total_tokens`, else `prompt_tokens`), for the key's tpm. */
function embeddingUsage(answer: unknown): Usage | undefined {
  const usage = (answer as { usage?: { prompt_tokens?: unknown; total_tokens?: unknown } } | undefined)?.usage;
  const tokens = typeof usage?.total_tokens === "number" ? usage.total_tokens : typeof usage?.prompt_tokens === "number" ? usage.prompt_tokens : undefined;
  return tokens === undefined ? undefined : { inputTokens: tokens, outputTokens: 0 };
}

export function embeddingsHandler(deps: ChatDeps) {
  return async (c: Context): Promise<Response> => {
    const parsed = embeddingsRequest.safeParse(await readJson(c, deps.config.gateway));
    if (!parsed.success) throw invalidRequest(describeIssues(parsed.error.issues));
    const body = parsed.data;
    const key = policyOf(deps.config, callerKey(c));
    checkModel(key, body.model);
    const model = resolveModel(body.model, deps.providers, deps.config.models);
    const candidates = model.candidates.filter((candidate) => candidate.provider.adapter.embed !== undefined);
    const first = candidates[0];
    if (!first) {
      throw GatewayError.invalidRequest(`The model "${body.model}" is served by provider "${model.provider.name}", whose protocol has no embeddings`, "model", "embeddings_not_supported");
    }
    let failure: unknown;
    for (const candidate of candidates) {
      try {
        const answer = await candidate.provider.adapter.embed!({ ...body, model: candidate.modelId });
        await deps.limits?.record(key, embeddingUsage(answer));
        return c.json(answer as object);
      } catch (error) {
        failure = error;
        // Another provider would refuse a bad request too; an outage is a reason to try the next.
        if (error instanceof GatewayError && error.status >= 400 && error.status < 500 && error.status !== 429) break;
      }
    }
    throw failure;
  };
}
