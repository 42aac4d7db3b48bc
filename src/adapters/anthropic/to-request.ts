/**
 * A neutral ChatRequest as the body of `POST /v1/messages`.
 */
import type { ChatRequest } from "../../core/index.ts";
import type { AdapterOptions } from "../types.ts";
import { toWireConversation } from "./messages.ts";
import { responseFormatInstruction } from "./response-format.ts";
import { canThink, maxTokensWithThinking, thinkingBudget, thinkingConfig } from "./thinking.ts";
import { toWireToolChoice } from "./tool-choice.ts";
import { toWireTools, withToolSearch } from "./tools.ts";
import type { WireParams } from "./wire.ts";

/** Anthropic requires `max_tokens`; used when neither the request nor the provider config sets it. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * Anthropic's sampling rules, met rather than failing the request:
 * - with thinking on, it rejects a changed temperature and accepts top_p only in [0.95, 1];
 * - its temperature goes from 0 to 1 (OpenAI's to 2): higher values are sent as 1;
 * - since the 4.5 models, "`temperature` and `top_p` cannot both be specified for this model.
 *   Please use only one.": with both set, temperature is sent.
 */
function sampling(request: ChatRequest, thinking: boolean): Pick<WireParams, "temperature" | "top_p"> {
  const temperature = request.temperature !== undefined && !thinking ? Math.min(1, request.temperature) : undefined;
  const topP = request.topP !== undefined && temperature === undefined && (!thinking || request.topP >= 0.95) ? request.topP : undefined;
  return {
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { top_p: topP }),
  };
}

function joinSystem(...parts: (string | undefined)[]): string | undefined {
  const text = parts.filter((part) => part !== undefined).join("\n\n");
  return text === "" ? undefined : text;
}

/**
 * `seed` has no Anthropic counterpart and is not sent. `extra` is merged last, so a client can set
 * any provider field (or override one of ours) on purpose.
 */
export function toWireParams(request: ChatRequest, options: AdapterOptions): WireParams {
  const { system, messages } = toWireConversation(request.messages, options.id);
  const budget = canThink(messages) ? thinkingBudget(request.reasoning) : undefined;
  const thinking = budget !== undefined;
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens ?? DEFAULT_MAX_TOKENS;
  const toolChoice = toWireToolChoice(request, thinking);
  const systemText = joinSystem(system, responseFormatInstruction(request.responseFormat));
  const params: WireParams = {
    model: request.model,
    max_tokens: thinking ? maxTokensWithThinking(maxTokens, budget) : maxTokens,
    messages,
    ...(systemText !== undefined ? { system: systemText } : {}),
    ...(request.tools?.length ? { tools: withToolSearch(toWireTools(request.tools)) as WireParams["tools"] } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(thinking ? { thinking: thinkingConfig(budget) } : {}),
    ...sampling(request, thinking),
    ...(request.stop?.length ? { stop_sequences: request.stop } : {}),
    ...(request.user ? { metadata: { user_id: request.user } } : {}),
  };
  return { ...params, ...request.extra };
}
