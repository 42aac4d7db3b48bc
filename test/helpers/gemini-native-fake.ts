/**
 * A strict fake of Gemini's own API (`models/{model}:generateContent`, `:streamGenerateContent
 * ?alt=sse`, `:countTokens`): a real HTTP server that refuses what Gemini refuses, with Gemini's
 * error texts and body shape (`{"error": {"code", "message", "status"}}`), and otherwise plays a
 * scripted multi-turn conversation the way Gemini 3 answers: parallel function calls without ids,
 * the thought signature on the first call only, thought summaries when asked for, a streamed
 * answer whose signature comes on a last, empty text part.
 *
 * Error texts are those of docs/provider-quirks.md §3 (the shared provider catalog) and of the
 * reports cited there; the others are quoted from public reports, as noted at each rule.
 */
import type { ServerResponse } from "node:http";
import { sendJson, startFakeUpstream, type FakeUpstream, type Handler, type RecordedRequest } from "./fake-upstream.ts";
import { geminiSchemaErrors } from "./gemini-schema-rules.ts";
import { FINAL_ANSWER, TIME_ARGS, WEATHER_ARGS } from "./strict-fakes/conversation.ts";
import { GEMINI_INVALID_NAME, GEMINI_MISSING_SIGNATURE, GEMINI_TURN_ORDER } from "./strict-fakes/gemini.ts";

export { GEMINI_INVALID_NAME, GEMINI_MISSING_SIGNATURE, GEMINI_TURN_ORDER, FINAL_ANSWER, TIME_ARGS, WEATHER_ARGS };

/** langchain-ai/langchain#27799; GoogleCloudPlatform/generative-ai#368. */
export const GEMINI_RESPONSE_ORDER = "Please ensure that function response turn comes immediately after a function call turn.";
/** google-gemini/gemini-cli#16415, #17208, #4217. */
export const GEMINI_RESPONSE_COUNT = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
/** The value Gemini's docs give for calls that never had a signature (foreign history). */
export const DOCUMENTED_SKIP = "skip_thought_signature_validator";
/** The second step's arguments (a sequential call on the same turn). */
export const SECOND_STEP_ARGS = { city: "Lyon" };

type Json = { [key: string]: any };

export interface GeminiRejection {
  status: number;
  message: string;
  body: { error: { code: number; message: string; status: string; details?: unknown[] } };
}

export function geminiError(status: number, message: string, name = "INVALID_ARGUMENT", details?: unknown[]): GeminiRejection {
  return { status, message, body: { error: { code: status, message, status: name, ...(details ? { details } : {}) } } };
}

const invalid = (message: string) => geminiError(400, message);
const unknownField = (key: string, at?: string) => invalid(`Invalid JSON payload received. Unknown name "${key}"${at ? ` at '${at}'` : ""}: Cannot find field.`);

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const VALID_NAME = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;

const REQUEST_FIELDS = new Set(["contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings", "cachedContent"]);
const GENERATION_FIELDS = new Set([
  "temperature", "topP", "topK", "candidateCount", "maxOutputTokens", "stopSequences", "seed", "presencePenalty", "frequencyPenalty",
  "responseMimeType", "responseSchema", "responseJsonSchema", "responseModalities", "thinkingConfig", "responseLogprobs", "logprobs", "mediaResolution",
]);
const THINKING_FIELDS = new Set(["includeThoughts", "thinkingBudget", "thinkingLevel"]);
const PART_FIELDS = new Set(["text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult", "videoMetadata", "partMetadata", "mediaResolution"]);
const DATA_FIELDS = ["text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"];
const DECLARATION_FIELDS = new Set(["name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema", "behavior"]);
/** The fields of Gemini's `Schema`: anything else is an unknown proto field. */
const SCHEMA_FIELDS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
]);

export interface GeminiRuleOptions {
  /** Signatures this fake issued (Gemini 3 validates them on the current turn). */
  issued?: ReadonlySet<string>;
  /**
   * Refuse `id` in function calls and responses, as Vertex AI and the v1 API do (`Unknown name
   * "id" at 'contents[1].parts[0].function_call': Cannot find field.`). Default true.
   */
  refuseIds?: boolean;
  /** The key the fake accepts as `x-goog-api-key` (else any), or as a bearer token with `bearer`. */
  apiKey?: string;
  bearer?: boolean;
}

/** The model and method of a request path (`/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse`). */
export function parsePath(path: string): { model: string; method: string; query: string } | undefined {
  const match = /\/models\/([^/:?]+):([A-Za-z]+)(\?.*)?$/.exec(path);
  return match ? { model: match[1]!, method: match[2]!, query: match[3] ?? "" } : undefined;
}

export const isGemini3 = (model: string) => /^gemini-3/.test(model);

function authRejection(req: RecordedRequest, options: GeminiRuleOptions): GeminiRejection | undefined {
  if (options.apiKey === undefined) return undefined;
  const sent = options.bearer ? /^Bearer (.*)$/.exec(String(req.headers["authorization"] ?? ""))?.[1] : req.headers["x-goog-api-key"];
  if (sent === options.apiKey) return undefined;
  if (options.bearer) return geminiError(401, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", "UNAUTHENTICATED");
  // An invalid key is a 400 with reason API_KEY_INVALID (as Google answers it).
  return geminiError(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }]);
}

function schemaProblem(node: unknown, at: string): string | undefined {
  if (!isObject(node)) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (!SCHEMA_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
    if (key === "type" && Array.isArray(value)) return `Invalid JSON payload received. Unknown name "type" at '${at}': Proto field is not repeating, cannot start list.`;
  }
  const children: [unknown, string][] = [
    ...Object.values(isObject(node.properties) ? node.properties : {}).map((child, i): [unknown, string] => [child, `${at}.properties[${i}].value`]),
    [node.items, `${at}.items`],
    ...(Array.isArray(node.anyOf) ? node.anyOf : []).map((child: unknown, i: number): [unknown, string] => [child, `${at}.any_of[${i}]`]),
  ];
  for (const [child, path] of children) {
    const problem = schemaProblem(child, path);
    if (problem) return problem;
  }
  return undefined;
}

function toolsRejection(body: Json): GeminiRejection | undefined {
  for (const [t, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    for (const [i, declaration] of (Array.isArray(tool?.functionDeclarations) ? tool.functionDeclarations : []).entries()) {
      const at = `tools[${t}].function_declarations[${i}]`;
      const unknown = Object.keys(declaration).find((key) => !DECLARATION_FIELDS.has(key));
      if (unknown) return unknownField(unknown, at);
      if (!VALID_NAME.test(String(declaration.name ?? ""))) return invalid(`* GenerateContentRequest.${at}.name: ${GEMINI_INVALID_NAME}\n`);
      if (declaration.parameters === undefined) continue;
      const problem = schemaProblem(declaration.parameters, `${at}.parameters`);
      if (problem) return invalid(problem);
      const [error] = geminiSchemaErrors(declaration.parameters);
      if (error) return invalid(`* GenerateContentRequest.${at}.${error}\n`);
    }
  }
  return undefined;
}

/** Gemini 2.5 Pro cannot turn thinking off; budgets outside a model's range are refused (vercel/ai#8027; RooCodeInc/Roo-Code#4399). */
function generationRejection(body: Json, model: string): GeminiRejection | undefined {
  const config = body.generationConfig;
  if (config === undefined) return undefined;
  const unknown = Object.keys(config).find((key) => !GENERATION_FIELDS.has(key));
  if (unknown) return unknownField(unknown, "generation_config");
  const thinking = config.thinkingConfig;
  if (thinking === undefined) return undefined;
  const unknownThinking = Object.keys(thinking).find((key) => !THINKING_FIELDS.has(key));
  if (unknownThinking) return unknownField(unknownThinking, "generation_config.thinking_config");
  const budget = thinking.thinkingBudget;
  if (budget === 0 && /^gemini-2\.5-pro/.test(model)) return invalid("The model does not support setting thinking_budget to 0.");
  if (typeof budget === "number" && (budget > 32768 || budget < -1)) return invalid(`The thinking budget (${budget}) is invalid.`);
  return undefined;
}

function partRejection(part: unknown, i: number, j: number, options: GeminiRuleOptions): GeminiRejection | undefined {
  const at = `contents[${i}].parts[${j}]`;
  if (!isObject(part)) return invalid(`Invalid JSON payload received. Invalid value at '${at}'`);
  const unknown = Object.keys(part).find((key) => !PART_FIELDS.has(key));
  if (unknown) return unknownField(unknown, at);
  if (!DATA_FIELDS.some((key) => part[key] !== undefined)) return invalid(`* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field\n`);
  const allowed = (base: string[]) => new Set(options.refuseIds === false ? [...base, "id"] : base);
  if (part.functionCall !== undefined) {
    const extra = Object.keys(part.functionCall).find((key) => !allowed(["name", "args"]).has(key));
    if (extra) return unknownField(extra, `${at}.function_call`);
    if (!VALID_NAME.test(String(part.functionCall.name ?? ""))) return invalid(`* GenerateContentRequest.${at}.function_call.name: ${GEMINI_INVALID_NAME}\n`);
  }
  if (part.functionResponse !== undefined) {
    const extra = Object.keys(part.functionResponse).find((key) => !allowed(["name", "response", "parts"]).has(key));
    if (extra) return unknownField(extra, `${at}.function_response`);
    const response = part.functionResponse.response;
    if (!isObject(response)) return invalid(`Invalid JSON payload received. Invalid value at '${at}.function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(response)}`);
  }
  return undefined;
}

const hasCalls = (content: Json | undefined) => Array.isArray(content?.parts) && content!.parts.some((p: Json) => p?.functionCall);
const responseCount = (content: Json | undefined) => (Array.isArray(content?.parts) ? content!.parts.filter((p: Json) => p?.functionResponse).length : 0);
const callCount = (content: Json | undefined) => (Array.isArray(content?.parts) ? content!.parts.filter((p: Json) => p?.functionCall).length : 0);
/** A user turn with standard content (not only function responses): where the current turn starts. */
const isUserText = (content: Json) => content.role === "user" && content.parts.some((p: Json) => !p.functionResponse);

function turnRejection(contents: Json[]): GeminiRejection | undefined {
  for (const [i, content] of contents.entries()) {
    const previous = contents[i - 1];
    if (hasCalls(content) && previous?.role !== "user") return invalid(GEMINI_TURN_ORDER);
    if (responseCount(content) > 0) {
      if (previous?.role !== "model" || !hasCalls(previous)) return invalid(GEMINI_RESPONSE_ORDER);
      if (responseCount(content) !== callCount(previous)) return invalid(GEMINI_RESPONSE_COUNT);
    }
    const next = contents[i + 1];
    if (hasCalls(content) && next !== undefined && responseCount(next) !== callCount(content)) return invalid(GEMINI_RESPONSE_COUNT);
  }
  return undefined;
}

/**
 * Gemini 3 checks signatures on the current turn only (since the last user message with standard
 * content): there the first function call of each step must carry one it issued (or the skip value).
 */
function signatureRejection(contents: Json[], issued: ReadonlySet<string>): GeminiRejection | undefined {
  let lastUser = -1;
  contents.forEach((content, index) => {
    if (isUserText(content)) lastUser = index;
  });
  for (const [index, content] of contents.entries()) {
    if (index < lastUser || content.role !== "model") continue;
    const first = content.parts.find((part: Json) => part.functionCall);
    if (!first) continue;
    const signature = first.thoughtSignature;
    if (typeof signature === "string" && (issued.has(signature) || signature === DOCUMENTED_SKIP)) continue;
    return invalid(
      `${GEMINI_MISSING_SIGNATURE} This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.functionCall.name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    );
  }
  return undefined;
}

/** What Gemini would refuse in this request, or undefined when it would take it. */
export function geminiRejection(req: RecordedRequest, options: GeminiRuleOptions = {}): GeminiRejection | undefined {
  const route = parsePath(req.path);
  if (!route) return geminiError(404, `Method not found: ${req.path}`, "NOT_FOUND");
  const auth = authRejection(req, options);
  if (auth) return auth;
  if (route.method === "streamGenerateContent" && !route.query.includes("alt=sse")) return invalid("the fake only streams with alt=sse");
  let body: Json = req.body;
  if (!isObject(body)) return invalid("Invalid JSON payload received.");
  if (route.method === "countTokens") {
    if (body.generateContentRequest === undefined) return body.contents === undefined ? invalid("* CountTokensRequest.contents: contents is not specified\n") : undefined;
    const unknown = Object.keys(body).find((key) => key !== "generateContentRequest");
    if (unknown) return unknownField(unknown);
    body = { ...body.generateContentRequest };
    if (typeof body.model !== "string") return invalid("* GenerateContentRequest.model: unexpected model name format\n");
    delete body.model;
  } else if (route.method !== "generateContent" && route.method !== "streamGenerateContent") {
    return geminiError(404, `Method not found: ${route.method}`, "NOT_FOUND");
  }
  const unknown = Object.keys(body).find((key) => !REQUEST_FIELDS.has(key));
  if (unknown) return unknownField(unknown);
  const contents: unknown = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) return invalid("* GenerateContentRequest.contents: contents is not specified\n");
  for (const [i, content] of contents.entries()) {
    if (!isObject(content)) return invalid(`Invalid JSON payload received. Invalid value at 'contents[${i}]'`);
    if (content.role !== "user" && content.role !== "model") return invalid("Please use a valid role: user, model.");
    if (!Array.isArray(content.parts) || content.parts.length === 0) return invalid(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    for (const [j, part] of content.parts.entries()) {
      const problem = partRejection(part, i, j, options);
      if (problem) return problem;
    }
  }
  return (
    toolsRejection(body) ??
    generationRejection(body, route.model) ??
    turnRejection(contents as Json[]) ??
    (isGemini3(route.model) ? signatureRejection(contents as Json[], options.issued ?? new Set()) : undefined)
  );
}

/** Answers a request Gemini would refuse with its error; else hands it to `inner`. */
export function geminiHandler(inner: Handler, options: GeminiRuleOptions = {}, rejections: GeminiRejection[] = []): Handler {
  return (req, res) => {
    const rejection = geminiRejection(req, options);
    if (rejection) {
      rejections.push(rejection);
      sendJson(res, rejection.status, rejection.body);
      return;
    }
    return inner(req, res);
  };
}

/** Gemini's SSE framing: `data: <json>` lines ended by CRLF. */
export function geminiSse(chunks: readonly (string | object)[]): string {
  return chunks.map((chunk) => `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\r\n\r\n`).join("");
}

export function sendGeminiSse(res: ServerResponse, chunks: readonly (string | object)[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(geminiSse(chunks));
}

// ---------------------------------------------------------------------------------------------
// The scripted conversation.

export interface GeminiFakeOptions extends GeminiRuleOptions {
  /** Rounds of function calls before the answer: the first calls two tools in parallel, each later one calls one. Default 2. */
  rounds?: number;
  /** Give function calls ids (as some Gemini API versions do). Default false. */
  returnIds?: boolean;
}

export interface GeminiFake {
  /** The base URL to configure (`…/v1beta`). */
  url: string;
  requests: RecordedRequest[];
  rejections: GeminiRejection[];
  /** Every signature handed out. */
  issued: Set<string>;
  /** The requests of the chat methods, in order. */
  chatRequests(): RecordedRequest[];
  close(): Promise<void>;
}

const declaredNames = (body: Json): string[] =>
  (Array.isArray(body.tools) ? body.tools : []).flatMap((tool: Json) => (tool.functionDeclarations ?? []).map((d: Json) => String(d.name)));

function usage(prompt: number, candidates: number, thoughts: number): Json {
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates + thoughts, thoughtsTokenCount: thoughts };
}

export async function startGeminiFake(options: GeminiFakeOptions = {}): Promise<GeminiFake> {
  const issued = new Set<string>();
  const rejections: GeminiRejection[] = [];
  const rounds = options.rounds ?? 2;
  let serial = 0;
  const sign = () => {
    const signature = `Ci${Buffer.from(`signature-${++serial}-${Math.random()}`).toString("base64")}`;
    issued.add(signature);
    return signature;
  };
  const rules: GeminiRuleOptions = { ...options, issued };
  const upstream: FakeUpstream = await startFakeUpstream(
    geminiHandler(
      (req, res) => {
        const route = parsePath(req.path)!;
        const body: Json = req.body;
        if (route.method === "countTokens") return sendJson(res, 200, { totalTokens: 42 });
        const contents: Json[] = body.contents;
        let lastUser = -1;
        contents.forEach((content, index) => {
          if (isUserText(content)) lastUser = index;
        });
        const steps = contents.slice(lastUser + 1).filter((content) => content.role === "model").length;
        const thoughts = body.generationConfig?.thinkingConfig?.includeThoughts === true;
        const names = declaredNames(body);
        const stream = route.method === "streamGenerateContent";
        const modelVersion = route.model;
        const responseId = `resp-${serial}`;
        const parts: Json[] = [];
        if (thoughts) parts.push({ text: `**Planning step ${steps + 1}**\n\nI will use the tools.`, thought: true });
        if (steps < rounds && names.length > 0) {
          const id = (n: number) => (options.returnIds ? { id: `fc-${serial}-${n}` } : {});
          if (steps === 0) {
            parts.push({ functionCall: { ...id(0), name: names[0], args: WEATHER_ARGS }, thoughtSignature: sign() });
            parts.push({ functionCall: { ...id(1), name: names[1] ?? names[0], args: TIME_ARGS } });
          } else {
            parts.push({ functionCall: { ...id(0), name: names[0], args: SECOND_STEP_ARGS }, thoughtSignature: sign() });
          }
          if (!stream) return sendJson(res, 200, { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: usage(30, 12, 40), modelVersion, responseId });
          const chunks = parts.map((part) => ({ candidates: [{ content: { role: "model", parts: [part] }, index: 0 }], modelVersion, responseId }));
          chunks.push({ candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP", index: 0 }], usageMetadata: usage(30, 12, 40), modelVersion, responseId } as never);
          return sendGeminiSse(res, chunks);
        }
        const signature = sign();
        if (!stream) {
          parts.push({ text: FINAL_ANSWER, thoughtSignature: signature });
          return sendJson(res, 200, { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: usage(60, 20, 10), modelVersion, responseId });
        }
        const half = Math.floor(FINAL_ANSWER.length / 2);
        const pieces: Json[] = [...parts, { text: FINAL_ANSWER.slice(0, half) }, { text: FINAL_ANSWER.slice(half) }];
        const chunks: Json[] = pieces.map((part) => ({ candidates: [{ content: { role: "model", parts: [part] }, index: 0 }], usageMetadata: usage(60, 10, 10), modelVersion, responseId }));
        chunks.push({ candidates: [{ content: { role: "model", parts: [{ text: "", thoughtSignature: signature }] }, finishReason: "STOP", index: 0 }], usageMetadata: usage(60, 20, 10), modelVersion, responseId });
        return sendGeminiSse(res, chunks);
      },
      rules,
      rejections,
    ),
  );
  return {
    url: `${upstream.url}/v1beta`,
    requests: upstream.requests,
    rejections,
    issued,
    chatRequests: () => upstream.requests.filter((req) => /:(stream)?[gG]enerateContent/.test(req.path)),
    close: () => upstream.close(),
  };
}
