/**
 * `POST /v1/embeddings`, passed through to an OpenAI-protocol provider: clients configured with
 * one base URL call it beside the chat routes. Routed like them (`provider/model`, aliases with
 * their deployments spread and cooled down and their fallbacks, `gateway.retries`, the keys and
 * limits of /v1); the body goes as the client sent it but for the model, and the provider's answer
 * comes back as it is.
 */
import type { Context } from "hono";
import { z } from "zod";
import { GatewayError, type Usage } from "../../../core/index.ts";
import { describeIssues } from "../../../core/zod-issues.ts";
import { tryCandidates } from "../../routing/resilient-model.ts";
import { routedModel } from "../../routing/deployments.ts";
import { DEFAULT_RETRY_POLICY } from "../../routing/retry-policy.ts";
import type { ChatDeps } from "../../shared/deps.ts";
import { readJson } from "../../shared/handler.ts";
import { checkModel, policyOf } from "../../shared/keys.ts";
import { callerKey } from "../auth.ts";
import { abortWhenClientGone } from "../client-gone.ts";
import { requestIdOf } from "../request-id.ts";
import { observationOf } from "../../observe/routes.ts";
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
    const model = await routedModel(body.model, deps.providers, deps.config.models, deps.deployments, requestIdOf(c));
    const candidates = model.candidates.filter((candidate) => candidate.provider.adapter.embed !== undefined);
    if (candidates.length === 0) {
      throw GatewayError.invalidRequest(`The model "${body.model}" is served by provider "${model.provider.name}", whose protocol has no embeddings`, "model", "embeddings_not_supported");
    }
    // Retries, fallbacks and cooldowns as for a chat turn: a bad request (400) is not retried
    // elsewhere, an outage or a rate limit is. A client that leaves stops them (and the call).
    const { controller, stopWatching } = abortWhenClientGone(c);
    const observation = observationOf(c);
    try {
      const { result: answer } = await tryCandidates(
        {
          candidates,
          policy: deps.retryPolicy ?? DEFAULT_RETRY_POLICY,
          logger: deps.logger,
          requestId: requestIdOf(c),
          ...(deps.deployments ? { deployments: deps.deployments } : {}),
          // Retries and fallbacks on the request's timeline, metrics and trace, as the chat doors'.
          ...(observation ? { observer: observation } : {}),
        },
        controller.signal,
        (candidate) => candidate.provider.adapter.embed!({ ...body, model: candidate.modelId }, controller.signal),
      );
      await deps.limits?.record(key, embeddingUsage(answer));
      return c.json(answer as object);
    } finally {
      stopWatching();
    }
  };
}
