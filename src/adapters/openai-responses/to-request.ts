/**
 * A neutral ChatRequest as the body of `POST /v1/responses`. The gateway is stateless, so the
 * upstream is too: `store: false` always, the whole conversation in `input`, and the reasoning
 * asked back encrypted (`include: ["reasoning.encrypted_content"]`) so it can go back with the
 * next turn instead of living in the provider's store.
 */
import type { ChatRequest, ResponseFormat } from "../../core/index.ts";
import { extend } from "../../core/extend.ts";
import { OPENAI_REASONING_MODEL } from "../openai-models.ts";
import { withPassthrough } from "./passthrough.ts";
import { toInputItems } from "./to-input.ts";
import { freeformNames, offeredTools, toWireToolChoice, toWireTools } from "./tools.ts";
import type { Reasoning, ResponseFormatTextConfig, ResponseTextConfig, WireParams } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

export const ENCRYPTED_REASONING = "reasoning.encrypted_content";

export interface RequestContext {
  /** The provider id: only its own reasoning and hosted items go back to it. */
  origin: string;
  /**
   * Names the request's offered tools had before any renaming for the wire: a client tool in the
   * passthrough's list under one of these is already among the tools sent.
   */
  toolNames?: ReadonlySet<string>;
}

/**
 * Fields a Chat Completions client may set (`openaiFields`) that the Responses API takes under
 * the same name (`verbosity` moves into `text`). The others (penalties, logit_bias, seed, n, …) do
 * not exist there and would be refused; `store` is the adapter's own.
 */
const OPENAI_FIELDS = ["service_tier", "metadata", "prompt_cache_key", "prompt_cache_retention", "safety_identifier"];

function openaiFields(request: ChatRequest): { [key: string]: unknown } {
  const fields = request.openaiFields ?? {};
  // A loop: fromEntries(filter().map()) made three arrays and cost 0.6 µs per request on Node 20.
  const out: { [key: string]: unknown } = {};
  for (const key of OPENAI_FIELDS) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}

/**
 * The reasoning asked for. A request translated from another protocol (Claude Code asks every
 * model to think) is not sent into a refusal: only to models named like OpenAI's reasoning models.
 * Summaries are asked for (`auto`): they are the reasoning's only readable text.
 */
function reasoningField(request: ChatRequest): Reasoning | undefined {
  const effort = request.reasoning?.effort;
  if (effort === undefined) return undefined;
  if (request.reasoning?.translated && !OPENAI_REASONING_MODEL.test(request.model)) return undefined;
  return effort === "none" ? { effort } : { effort, summary: "auto" };
}

/** The answer's format, and (a Chat Completions client's `verbosity`, for gpt-5) its length. */
function textField(request: ChatRequest): ResponseTextConfig | undefined {
  const verbosity = request.openaiFields?.["verbosity"];
  const text: ResponseTextConfig = {
    ...(request.responseFormat === undefined ? {} : { format: textFormat(request.responseFormat) }),
    ...(verbosity === "low" || verbosity === "medium" || verbosity === "high" ? { verbosity } : {}),
  };
  return Object.keys(text).length > 0 ? text : undefined;
}

function textFormat(format: ResponseFormat): ResponseFormatTextConfig {
  if (format.type !== "json_schema") return { type: format.type };
  const { name, schema, strict, description } = format;
  return {
    type: "json_schema",
    name,
    schema,
    ...(strict === undefined ? {} : { strict }),
    ...(description === undefined ? {} : { description }),
  };
}

/** tool_choice and parallel_tool_calls go only with tools. */
function toolFields(request: ChatRequest): Partial<WireParams> {
  const tools = offeredTools(request.tools);
  if (tools.length === 0) return {};
  const choice = toWireToolChoice(request);
  return {
    tools: toWireTools(tools),
    ...(choice === undefined ? {} : { tool_choice: choice }),
    ...(request.parallelToolCalls === undefined ? {} : { parallel_tool_calls: request.parallelToolCalls }),
  };
}

/** `stop` and `seed` have no Responses counterpart and are not sent. */
function neutralParams(request: ChatRequest, origin: string): WireParams {
  const reasoning = reasoningField(request);
  const text = textField(request);
  return {
    model: request.model,
    input: toInputItems(request.messages, { origin, freeform: freeformNames(request.tools) }),
    ...toolFields(request),
    ...openaiFields(request),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
    ...(request.maxTokens === undefined ? {} : { max_output_tokens: request.maxTokens }),
    ...(request.user === undefined ? {} : { user: request.user }),
    ...(reasoning ? { reasoning } : {}),
    ...(text === undefined ? {} : { text }),
  };
}

/**
 * Whether to ask for encrypted reasoning. OpenAI refuses the include for models without reasoning
 * ("Encrypted content is not supported with this model.", gpt-4o, gpt-4.1): it is asked of models
 * named like its reasoning models, and wherever reasoning is asked for (a deployment's own name).
 */
function wantsEncryptedReasoning(request: ChatRequest, params: WireParams): boolean {
  return OPENAI_REASONING_MODEL.test(request.model) || params.reasoning !== undefined;
}

function union(...lists: unknown[]): string[] {
  const all = flatMapped(lists, (list) => (Array.isArray(list) ? list : [])).filter((entry): entry is string => typeof entry === "string");
  return [...new Set(all)];
}

/** Without tools, the fields about tools go too (servers refuse a tool_choice alone). */
function withoutEmptyTools(params: WireParams): WireParams {
  if (params.tools?.length) return params;
  const { tools: _tools, tool_choice: _choice, parallel_tool_calls: _parallel, ...rest } = params;
  return rest;
}

/**
 * The non-streamed body. A client of the Responses protocol itself (`passthrough`) gets the
 * fields of its body the adapter does not set, and its hosted tools; `extra` is merged after
 * that, so a field can be set (or one of ours overridden) on purpose — but never `store`.
 */
export function toWireParams(request: ChatRequest, context: RequestContext): WireParams {
  const base = neutralParams(request, context.origin);
  const passthrough = request.passthrough;
  const merged = passthrough?.protocol === "openai-responses" ? withPassthrough(base, passthrough, context.toolNames ?? new Set()) : base;
  // `stream` is ours to decide (complete vs stream).
  const { stream: _stream, ...extra } = request.extra ?? {};
  const params = withoutEmptyTools(extend(merged, extra) as WireParams);
  const include = union(params.include, merged.include, wantsEncryptedReasoning(request, params) ? [ENCRYPTED_REASONING] : []);
  const { include: _include, ...rest } = params;
  return extend(rest, include.length > 0 ? { store: false, include: include as WireParams["include"] } : { store: false });
}
