/**
 * A neutral ChatRequest as the body of `generateContent` / `streamGenerateContent` (the model is
 * in the URL). `user` and the OpenAI-only fields have no Gemini counterpart and are not sent;
 * `extra` is merged last (its `generationConfig` and `toolConfig` into ours), so a client can set
 * any Gemini field (`topK`, `safetySettings`, `cachedContent`, …) or override one of ours.
 */
import type { ChatRequest } from "../../core/index.ts";
import { isJsonObject } from "../../core/json-object.ts";
import { toWireConversation } from "./contents.ts";
import { toGenerationConfig } from "./generation.ts";
import { modelTraits } from "./models.ts";
import { offeredTools, toWireToolConfig, toWireTools } from "./tools.ts";
import type { WireRequest } from "./wire.ts";

export interface RequestContext {
  /** The provider id: only its own provider data goes back to it. */
  origin: string;
  /** The provider's `maxTokens`, for a request without a limit. */
  defaultMaxTokens?: number | undefined;
}

function mergeExtra(body: WireRequest, extra: { [key: string]: unknown } | undefined): WireRequest {
  if (!extra) return body;
  const merged: WireRequest = { ...body, ...extra } as WireRequest;
  for (const key of ["generationConfig", "toolConfig"] as const) {
    const ours = body[key];
    const theirs = extra[key];
    if (isJsonObject(ours) && isJsonObject(theirs)) (merged as { [key: string]: unknown })[key] = { ...ours, ...theirs };
  }
  return merged;
}

export function toWireRequest(request: ChatRequest, context: RequestContext): WireRequest {
  const traits = modelTraits(request.model);
  const { systemInstruction, contents } = toWireConversation(request.messages, { origin: context.origin, traits });
  const tools = offeredTools(request.tools);
  const toolConfig = tools.length > 0 ? toWireToolConfig(request) : undefined;
  const generationConfig = toGenerationConfig(request, traits, context.defaultMaxTokens);
  const body: WireRequest = {
    contents,
    ...(systemInstruction ? { systemInstruction } : {}),
    ...(tools.length > 0 ? { tools: toWireTools(tools) } : {}),
    ...(toolConfig ? { toolConfig } : {}),
    ...(generationConfig ? { generationConfig } : {}),
  };
  return mergeExtra(body, request.extra);
}
