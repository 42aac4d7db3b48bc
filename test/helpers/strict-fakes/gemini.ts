/**
 * Gemini's OpenAI-compatible endpoint: function names, the OpenAPI schema subset, turn order,
 * and Gemini 3 thought signatures. Errors come wrapped in an array, as that endpoint sends them.
 */
import { FINAL_ANSWER, offeredNames, TIME_ARGS, wantsAnswer, WEATHER_ARGS, type Body } from "./conversation.ts";
import type { ScriptedMessage } from "./render.ts";
import type { FakeFamily, Rejection, Rule } from "./strict-fake.ts";

export const GEMINI_INVALID_NAME =
  "Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.) or dashes (-), with a maximum length of 64.";
export const GEMINI_MISSING_SIGNATURE = "Function call is missing a thought_signature in functionCall parts.";
export const GEMINI_TURN_ORDER = "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";

function geminiError(message: string): Rejection {
  return { status: 400, message, body: [{ error: { code: 400, message, status: "INVALID_ARGUMENT" } }] };
}

const VALID_NAME = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;

const functionNames: Rule = (body) => {
  const index = (body.tools ?? []).findIndex((tool: Body) => !VALID_NAME.test(tool.function?.name ?? ""));
  if (index !== -1) return geminiError(`* GenerateContentRequest.tools[0].function_declarations[${index}].name: ${GEMINI_INVALID_NAME}\n`);
  const called = body.messages.flatMap((m: Body) => (m.tool_calls ?? []).map((c: Body) => c.function.name as string));
  return called.some((name: string) => !VALID_NAME.test(name)) ? geminiError(`* GenerateContentRequest.contents: ${GEMINI_INVALID_NAME}\n`) : undefined;
};

/** The fields of Gemini's `Schema`: anything else is an unknown proto field. */
const SCHEMA_FIELDS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
  "default", "items", "minimum", "maximum",
]);

function schemaProblem(node: unknown, at: string): string | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (!SCHEMA_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
    if (key === "type" && Array.isArray(value)) return `Invalid JSON payload received. Unknown name "type" at '${at}': Proto field is not repeating, cannot start list.`;
  }
  const record = node as Body;
  const children: [unknown, string][] = [
    ...Object.values(record.properties ?? {}).map((child, i): [unknown, string] => [child, `${at}.properties[${i}].value`]),
    [record.items, `${at}.items`],
    ...(record.anyOf ?? []).map((child: unknown, i: number): [unknown, string] => [child, `${at}.any_of[${i}]`]),
  ];
  for (const [child, path] of children) {
    const problem = schemaProblem(child, path);
    if (problem) return problem;
  }
  return undefined;
}

const schemas: Rule = (body) => {
  for (const [i, tool] of (body.tools ?? []).entries()) {
    const problem = schemaProblem(tool.function?.parameters, `tools[0].function_declarations[${i}].parameters`);
    if (problem) return geminiError(problem);
  }
  return undefined;
};

/** OpenAI-only request fields Gemini's OpenAI endpoint does not know (openai/openai-agents-python#455; n4ze3m/page-assist#418). */
const UNKNOWN_TOP_LEVEL = ["frequency_penalty", "presence_penalty", "store", "metadata", "service_tier", "logit_bias", "prediction", "verbosity", "prompt_cache_key", "safety_identifier"];

const unknownFields: Rule = (body) => {
  const key = UNKNOWN_TOP_LEVEL.find((name) => name in body);
  return key === undefined ? undefined : geminiError(`Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
};

const turnOrder: Rule = (body) => {
  const first = body.messages.find((m: Body) => m.role !== "system");
  return first?.role === "assistant" ? geminiError(GEMINI_TURN_ORDER) : undefined;
};

/** The value Gemini's docs give for calls that never had a signature (foreign history). */
const DOCUMENTED_SKIP = "skip_thought_signature_validator";

/**
 * Strict validation covers the current turn only (since the last user message): there the
 * first call of each step must carry a signature Gemini issued.
 */
function signatureRule(issued: Set<string>): Rule {
  return (body) => {
    const messages: Body[] = body.messages;
    const lastUser = messages.map((m) => m.role).lastIndexOf("user");
    for (const [index, message] of messages.entries()) {
      if (index < lastUser || !message.tool_calls?.length) continue;
      const first = message.tool_calls[0];
      const signature = first.extra_content?.google?.thought_signature;
      if (typeof signature === "string" && (issued.has(signature) || signature === DOCUMENTED_SKIP)) continue;
      return geminiError(
        `${GEMINI_MISSING_SIGNATURE} This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.function.name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
    return undefined;
  };
}

export function geminiFamily(): FakeFamily & { issuedSignatures: Set<string> } {
  const issued = new Set<string>();
  let turn = 0;
  const reply = (body: Body): ScriptedMessage => {
    if (wantsAnswer(body)) return { content: FINAL_ANSWER, finish: "stop" };
    const [weather, time] = offeredNames(body);
    const signature = `CiQBjz1rX${turn++}+signature/of/the/first/call==`;
    issued.add(signature);
    // Empty ids (as the endpoint sends them), the signature on the first call only, "stop".
    return {
      content: null,
      tool_calls: [
        { id: "", name: weather, arguments: JSON.stringify(WEATHER_ARGS), extra: { google: { thought_signature: signature } } },
        { id: "", name: time, arguments: JSON.stringify(TIME_ARGS) },
      ],
      finish: "stop",
    };
  };
  return {
    name: "gemini",
    issuedSignatures: issued,
    rules: [unknownFields, functionNames, schemas, turnOrder, signatureRule(issued)],
    reply,
    style: { wholeCalls: true, piece: 6 },
  };
}
