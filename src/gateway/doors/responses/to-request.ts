/** A Responses request's settings as the neutral request's, beside its converted conversation. */
import type { ChatRequest, Message, ResponseFormat, ToolChoice } from "../../../core/index.ts";
import { defined } from "../../shared/neutral-helpers.ts";
import type { ResponsesRequestBody } from "./request-schema.ts";
import type { ToolNamer } from "./to-neutral.ts";
import type { ToolPlan } from "./tools.ts";

function toolChoice(choice: ResponsesRequestBody["tool_choice"], nameOf: ToolNamer): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { type: choice };
  switch (choice.type) {
    case "function":
    case "custom":
      return { type: "tool", name: String(choice["name"]) };
    case "mcp":
      return typeof choice["name"] === "string" ? { type: "tool", name: nameOf(String(choice["server_label"]), choice["name"]) } : { type: "required" };
    case "allowed_tools":
      return { type: choice["mode"] === "required" ? "required" : "auto" };
    default:
      // A hosted tool: for a Responses upstream, which takes it as sent (passthrough).
      return { type: "required" };
  }
}

function responseFormat(format: NonNullable<ResponsesRequestBody["text"]>["format"]): ResponseFormat | undefined {
  if (!format) return undefined;
  if (format.type !== "json_schema") return { type: format.type };
  return {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    ...(format.description === undefined ? {} : { description: format.description }),
    ...(format.strict == null ? {} : { strict: format.strict }),
  };
}

/** The OpenAI fields with no neutral meaning, for OpenAI-protocol providers whose preset takes them. */
function openaiFields(body: ResponsesRequestBody): ChatRequest["openaiFields"] {
  const fields: { [key: string]: unknown } = {};
  for (const key of ["service_tier", "metadata", "prompt_cache_key", "safety_identifier"] as const) if (body[key] != null) fields[key] = body[key];
  if (body.text?.verbosity) fields["verbosity"] = body.text.verbosity;
  return Object.keys(fields).length > 0 ? fields : undefined;
}


export function toNeutralRequest(body: ResponsesRequestBody, plan: ToolPlan, messages: Message[], nameOf: ToolNamer): Omit<ChatRequest, "model"> {
  const { model: _model, input: _input, instructions: _instructions, tools: _tools, stream: _stream, previous_response_id: _previous, store: _store, ...rest } = body;
  return defined({
    messages,
    tools: plan.tools.length > 0 ? plan.tools : undefined,
    toolChoice: toolChoice(body.tool_choice, nameOf),
    parallelToolCalls: body.parallel_tool_calls ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    maxTokens: body.max_output_tokens ?? undefined,
    user: body.user ?? body.safety_identifier ?? undefined,
    reasoning: body.reasoning?.effort ? { effort: body.reasoning.effort } : undefined,
    responseFormat: responseFormat(body.text?.format),
    openaiFields: openaiFields(body),
    passthrough: { protocol: "openai-responses" as const, body: rest, tools: plan.hosted, headers: {} },
  });
}
