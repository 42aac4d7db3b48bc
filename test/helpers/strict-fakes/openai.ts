/** OpenAI itself, and the providers that follow it closely: Groq and xAI (their own error shapes). */
import { readJsonFixture } from "../fake-upstream.ts";
import { FINAL_ANSWER, offeredNames, TIME_ARGS, userTexts, wantsAnswer, WEATHER_ARGS, type Body } from "./conversation.ts";
import { orphanToolMessage, unansweredCalls } from "./pairing.ts";
import type { ScriptedMessage } from "./render.ts";
import { openAiError, type FakeFamily, type Rule } from "./strict-fake.ts";

export const OPENAI_PARALLEL_WITHOUT_TOOLS =
  "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.";
export const XAI_TOOL_CHOICE_WITHOUT_TOOLS = "Invalid request content: A tool_choice was set on the request but no tools were specified.";
export const GROQ_TOOL_USE_FAILED = "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.";
/** A user message containing this makes the Groq fake fail the way Groq does on a bad sample. */
export const GROQ_FAIL_TRIGGER = "FAIL_TOOL_USE";

const hasTools = (body: Body) => Array.isArray(body.tools) && body.tools.length > 0;

const parallelWithoutTools: Rule = (body) =>
  body.parallel_tool_calls !== undefined && !hasTools(body)
    ? openAiError(400, OPENAI_PARALLEL_WITHOUT_TOOLS, { param: "parallel_tool_calls", code: "invalid_value" })
    : undefined;

/** OpenAI's reasoning models refuse max_tokens: the recorded 400 (openai-chat fixture). */
const REASONING_MODEL = /^(o\d|gpt-5)/;
export const OPENAI_MAX_TOKENS_ERROR = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
const reasoningModelMaxTokens: Rule = (body) =>
  REASONING_MODEL.test(body.model) && body.max_tokens !== undefined
    ? { status: 400, message: OPENAI_MAX_TOKENS_ERROR, body: readJsonFixture("openai-chat/reasoning-model-legacy-parameter-error.json") }
    : undefined;

const functionNames: Rule = (body) => {
  const index = (body.tools ?? []).findIndex((tool: Body) => !/^[a-zA-Z0-9_-]+$/.test(tool.function?.name ?? ""));
  if (index === -1) return undefined;
  const message = `Invalid 'tools[${index}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
  return openAiError(400, message, { param: `tools[${index}].function.name`, code: "invalid_value" });
};

/** Where an array schema without `items` sits, as OpenAI names it: `'properties', 'paths'`. */
function arrayWithoutItems(node: unknown, context: string[] = []): string[] | undefined {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
  const record = node as Record<string, unknown>;
  const types = Array.isArray(record["type"]) ? record["type"] : [record["type"]];
  if (types.includes("array") && (record["items"] === null || typeof record["items"] !== "object" || Array.isArray(record["items"]))) return context;
  for (const [key, child] of Object.entries(record)) {
    if (key === "properties" && child && typeof child === "object") {
      for (const [name, property] of Object.entries(child)) {
        const found = arrayWithoutItems(property, [...context, "properties", name]);
        if (found) return found;
      }
    } else if (key === "items") {
      const found = arrayWithoutItems(child, [...context, "items"]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Strict or not, OpenAI refuses an array schema without items (invalid_function_parameters). */
const arrayItems: Rule = (body) => {
  for (const [i, tool] of (body.tools ?? []).entries()) {
    const context = arrayWithoutItems(tool.function?.parameters);
    if (context === undefined) continue;
    const where = context.map((part) => `'${part}'`).join(", ");
    const message = `Invalid schema for function '${tool.function.name}': In context=(${where}), array schema missing items.`;
    return openAiError(400, message, { param: `tools[${i}].function.parameters`, code: "invalid_function_parameters" });
  }
  return undefined;
};

const pairing: Rule = (body) => {
  const unanswered = unansweredCalls(body);
  if (unanswered) {
    const message = `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.missing.join(", ")}`;
    return openAiError(400, message, { param: "messages", code: null });
  }
  const orphan = orphanToolMessage(body);
  if (orphan === undefined) return undefined;
  return openAiError(400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", {
    param: `messages.[${orphan}].role`,
  });
};

/** xAI's errors: `{ code, error }` with the message as a string. */
const xaiToolChoiceWithoutTools: Rule = (body) =>
  body.tool_choice !== undefined && !hasTools(body)
    ? { status: 400, message: XAI_TOOL_CHOICE_WITHOUT_TOOLS, body: { code: "Client specified an invalid argument", error: XAI_TOOL_CHOICE_WITHOUT_TOOLS } }
    : undefined;

const groqToolUseFailed: Rule = (body) => {
  if (!userTexts(body).some((text) => text.includes(GROQ_FAIL_TRIGGER))) return undefined;
  return {
    status: 400,
    message: GROQ_TOOL_USE_FAILED,
    body: {
      error: {
        message: GROQ_TOOL_USE_FAILED,
        type: "invalid_request_error",
        code: "tool_use_failed",
        failed_generation: '<function=get_weather{"city": "Paris"}</function>',
      },
    },
  };
};

export function idMaker(make: (n: number) => string): () => string {
  let n = 0;
  return () => make(n++);
}

export function openAiStyleReply(body: Body, nextId: () => string): ScriptedMessage {
  if (wantsAnswer(body)) return { content: FINAL_ANSWER, finish: "stop" };
  const [weather, time] = offeredNames(body);
  return {
    content: null,
    tool_calls: [
      { id: nextId(), name: weather, arguments: JSON.stringify(WEATHER_ARGS) },
      { id: nextId(), name: time, arguments: JSON.stringify(TIME_ARGS) },
    ],
    finish: "tool_calls",
  };
}

export function openaiFamily(flavor: "openai" | "groq" | "xai" = "openai"): FakeFamily {
  const nextId = idMaker((n) => `call_${String(n).padStart(4, "0")}Yq3kZpW9xL2mB7vR`);
  const extra: Rule[] = flavor === "xai" ? [xaiToolChoiceWithoutTools] : flavor === "groq" ? [groqToolUseFailed] : [reasoningModelMaxTokens];
  return {
    name: flavor,
    rules: [...extra, parallelWithoutTools, functionNames, arrayItems, pairing],
    reply: (body) => openAiStyleReply(body, nextId),
    // Groq and xAI send each tool call whole in one chunk; OpenAI streams the arguments.
    style: flavor === "openai" ? { piece: 4 } : { wholeCalls: true, piece: 4 },
  };
}
