/**
 * The Gemini wire types this adapter speaks (`generateContent`, `streamGenerateContent`), taken
 * from the official @google/genai package so that a change of the API shows up as a type error
 * here. Only types are imported: requests go out through the gateway's own fetch (no SDK client on
 * the request path). The SDK's string enums are nominal in TypeScript, so the fields that hold
 * them are retyped as the enums' string values (what the JSON carries), and schemas stay plain
 * JSON Schema objects in Gemini's dialect (src/core/schema/to-gemini.ts).
 */
import type {
  Candidate,
  Content,
  FinishReason,
  FunctionCall,
  FunctionCallingConfig,
  FunctionCallingConfigMode,
  FunctionDeclaration,
  FunctionResponse,
  FunctionResponsePart,
  GenerateContentResponse,
  GenerateContentResponsePromptFeedback,
  GenerateContentResponseUsageMetadata,
  GenerationConfig,
  Part,
  PartialArg,
  ThinkingConfig,
  ThinkingLevel,
} from "@google/genai";
import type { JsonSchema } from "../../core/index.ts";

export type { FunctionCall, PartialArg };

/** A thinking level as the JSON carries it (`LOW`, `HIGH`, …). */
export type WireThinkingLevel = Exclude<`${ThinkingLevel}`, "THINKING_LEVEL_UNSPECIFIED">;
export type WireFinishReason = `${FinishReason}`;
export type WireFunctionCallingMode = `${FunctionCallingConfigMode}`;

export type WireFunctionResponse = Pick<FunctionResponse, "id" | "name" | "response"> & {
  parts?: Pick<FunctionResponsePart, "inlineData" | "fileData">[];
};

/** A part of a request or a response (the SDK's Part, with its function response made plain data). */
export type WirePart = Omit<Part, "functionResponse"> & { functionResponse?: WireFunctionResponse };

export interface WireContent extends Omit<Content, "parts" | "role"> {
  role: "user" | "model";
  parts: WirePart[];
}

export type WireFunctionDeclaration = Omit<FunctionDeclaration, "parameters" | "behavior" | "response"> & {
  /** Gemini's OpenAPI subset; left out for a function without parameters. */
  parameters?: JsonSchema;
};

export interface WireTool {
  functionDeclarations: WireFunctionDeclaration[];
}

export interface WireToolConfig {
  functionCallingConfig: Omit<FunctionCallingConfig, "mode"> & { mode: WireFunctionCallingMode };
}

export type WireThinkingConfig = Omit<ThinkingConfig, "thinkingLevel"> & { thinkingLevel?: WireThinkingLevel };

export type WireGenerationConfig = Pick<
  GenerationConfig,
  "temperature" | "topP" | "topK" | "maxOutputTokens" | "stopSequences" | "seed" | "responseMimeType" | "candidateCount"
> & {
  responseSchema?: JsonSchema;
  responseJsonSchema?: JsonSchema;
  thinkingConfig?: WireThinkingConfig;
};

/** The body of `models/{model}:generateContent` and `:streamGenerateContent`. */
export interface WireRequest {
  contents: WireContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: WireTool[];
  toolConfig?: WireToolConfig;
  generationConfig?: WireGenerationConfig;
  [key: string]: unknown;
}

export type WireUsage = Pick<
  GenerateContentResponseUsageMetadata,
  "promptTokenCount" | "candidatesTokenCount" | "cachedContentTokenCount" | "thoughtsTokenCount" | "toolUsePromptTokenCount" | "totalTokenCount"
>;

export type WireCandidate = Omit<Pick<Candidate, "content" | "finishReason" | "finishMessage" | "index">, "finishReason" | "content"> & {
  content?: { role?: string; parts?: WirePart[] };
  finishReason?: WireFinishReason | string;
};

/** One response, or one chunk of a streamed one (each chunk is a response of its own shape). */
export type WireResponse = Pick<GenerateContentResponse, "modelVersion" | "responseId"> & {
  candidates?: WireCandidate[];
  usageMetadata?: WireUsage;
  promptFeedback?: Pick<GenerateContentResponsePromptFeedback, "blockReasonMessage"> & { blockReason?: string };
};

/** Google's error body (google.rpc.Status in JSON): `{"error": {"code", "message", "status", "details"}}`. */
export interface WireError {
  code?: number;
  message?: string;
  status?: string;
  details?: { "@type"?: string; reason?: string; retryDelay?: string; [key: string]: unknown }[];
}

/** What a stream's data line holds: a response chunk, or an error Google sent mid-stream. */
export type WireChunk = WireResponse | { error: WireError };
