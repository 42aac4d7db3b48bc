/**
 * The switches of the quirk layer: one per provider behaviour the OpenAI chat adapter can work
 * around. Presets (presets.ts) are plain objects of these; the adapter applies them in one place
 * before sending (request/) and one place after receiving (response/). Error texts quoted here
 * are the providers' own, from docs/provider-quirks.md.
 */

export interface QuirkSwitches {
  // ---- Request shape (every provider) ----

  /**
   * Remove `tool_choice`, `parallel_tool_calls` and an empty `tools` when no tools are sent
   * (also when they came in through `extra`). OpenAI: "'parallel_tool_calls' is only allowed
   * when 'tools' are specified."; xAI: "A tool_choice was set on the request but no tools were
   * specified."
   */
  stripToolFieldsWithoutTools: boolean;
  /**
   * `omit-auto`: leave out `tool_choice: "auto"` (it is the default anyway). vLLM without
   * `--enable-auto-tool-choice` rejects it: "\"auto\" tool choice requires
   * --enable-auto-tool-choice and --tool-call-parser to be set".
   */
  toolChoice: "send" | "omit-auto";
  /**
   * The body field for `maxTokens`. `as-sent`: the field the client used (OpenAI's reasoning
   * models refuse `max_tokens`: "Unsupported parameter: 'max_tokens' is not supported with this
   * model. Use 'max_completion_tokens' instead."). `max_tokens` for servers that know only that.
   */
  maxTokensField: "as-sent" | "max_tokens" | "max_completion_tokens";
  /**
   * How reasoning is asked for. `reasoning_effort`: OpenAI's field (a request translated from
   * another protocol's thinking switch goes only to models named like OpenAI's reasoning models,
   * as others refuse it: "Unrecognized request argument supplied: reasoning_effort").
   * `thinking`: GLM's `thinking: {"type": "enabled" | "disabled"}`.
   */
  reasoningRequest: "reasoning_effort" | "thinking";
  /**
   * Which of the client's OpenAI-only request fields (`frequency_penalty`, `logit_bias`,
   * `store`, `metadata`, `service_tier`, …) go out, by name; `"*"` for all. Gemini's endpoint
   * refuses unknown ones: `Invalid JSON payload received. Unknown name "store": Cannot find
   * field.`; Mistral: 422 extra_forbidden; Groq: 400 for `logit_bias`.
   */
  openaiOnlyFields: readonly string[];
  /**
   * Send the client's message `name` (participant names). Off, it is taken off every message
   * but tool results: Mistral refuses it (422 extra_forbidden), Groq documents a 400.
   */
  messageNames: boolean;
  /**
   * Send OpenAI's image `detail` (`low` saves cost). Off, it is taken off image parts: OpenAI,
   * Mistral, vLLM and xAI document it; the others do not.
   */
  imageDetail: boolean;

  // ---- Message shape ----

  /** Assistant messages always carry a string `content` (null becomes ""). GLM: error 1214. */
  assistantContentString: boolean;
  /**
   * The first message after the system messages is a user message (a placeholder is inserted
   * when it is not). GLM rejects a conversation without a user turn (1214); Gemini wants a
   * function-call turn "immediately after a user turn or after a function response turn".
   */
  ensureUserMessage: boolean;
  /** Every tool definition has `type: "function"`. GLM: "tools[0].type:type cannot be empty." */
  toolTypeFunction: boolean;
  /**
   * Array content of system, assistant and tool messages is flattened to a string. GLM's chat
   * template drops list-form content silently (or rejects it: "messages[N].content[0].type type
   * error"). User messages keep their parts (they may hold images).
   */
  flattenContent: boolean;
  /**
   * `alnum9`: tool-call ids (in assistant `tool_calls` and in `tool_call_id`) are mapped to
   * exactly 9 letters/digits, deterministically. Mistral: "Tool call id was call_… but must be
   * a-z, A-Z, 0-9, with a length of 9." (code 3280)
   */
  toolCallIds: "as-is" | "alnum9";
  /**
   * A user message right after tool messages gets an assistant message in between.
   * Mistral: "Unexpected role 'user' after role 'tool'" (code 3230).
   */
  bridgeUserAfterTool: boolean;
  /**
   * A conversation that ends with an assistant message (a prefill the model should continue) is
   * sent with `prefix: true` on it, Mistral's way of saying so. Without it: "Expected last role
   * User or Tool (or Assistant with prefix True) for serving but got assistant" (code 3230).
   */
  prefixTrailingAssistant: boolean;

  // ---- Gemini (OpenAI-compatible endpoint) ----

  /**
   * `gemini`: function names that Gemini refuses ("Invalid function name. Must start with a
   * letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.) or
   * dashes (-), with a maximum length of 64.") are renamed for the request and mapped back
   * exactly in the response. `openai`: the same for OpenAI's rule, `^[a-zA-Z0-9_-]{1,64}$`
   * ("Invalid 'tools[0].function.name': string does not match pattern"), which clients written
   * for laxer providers (`fs.read`, `github/search`) break. Valid names never change.
   */
  functionNames: "as-is" | "openai" | "gemini";
  /**
   * `gemini`: tool parameter schemas are converted to Gemini's OpenAPI subset (unknown keywords
   * are refused: "Unknown name \"additionalProperties\" … Cannot find field."). Also the schema
   * target the gateway should normalize MCP tools for.
   */
  toolSchemas: "as-is" | "gemini";
  /**
   * Gemini 3 thought signatures (`tool_calls[].extra_content.google.thought_signature`) are kept
   * per tool call in its providerData and sent back on that call. Without them: "Function call
   * is missing a thought_signature in functionCall parts."
   */
  thoughtSignatures: boolean;

  // ---- Reasoning ----

  /**
   * Send this provider's own reasoning back on assistant messages (`tool-turns`: only those with
   * tool calls, with "" when none is known). DeepSeek thinking mode: "Missing
   * `reasoning_content` field in the assistant message at message index N."
   */
  replayReasoning: "off" | "tool-turns" | "all";
  /** The assistant-message field replayed reasoning goes into. */
  reasoningField: "reasoning_content" | "reasoning";
  /**
   * Models (exact ids, `*` as wildcard, case-insensitive) that must never get reasoning back,
   * whatever `replayReasoning` says. The R1-era `deepseek-reasoner` (before V3.1): "The reasoning_content is an
   * intermediate result for display purposes only … Please remove the reasoning_content from
   * your message".
   */
  replayReasoningExceptModels: readonly string[];
  /**
   * A leading `<think>…</think>` in the content becomes a reasoning block (the visible text loses
   * the tags), while the content as received is kept and sent back byte-for-byte: MiniMax wants
   * its interleaved thinking "preserved completely" in the history.
   */
  thinkTags: boolean;
  /** MiniMax `reasoning_details` (with `reasoning_split`) read as reasoning and sent back verbatim. */
  reasoningDetails: boolean;

  // ---- Tool calls in responses ----

  /** Tool-call arguments that arrive as a JSON object (llama.cpp, Ollama) are turned into JSON text. */
  objectArguments: boolean;
  /**
   * `hermes`: tool calls the model printed as text (`<tool_call>{"name":…,"arguments":…}</tool_call>`,
   * the Hermes/Qwen format a local server leaves in `content` when its tool parser is off) become
   * real tool calls and leave the text. Only when the request offered tools.
   */
  textToolCalls: "off" | "hermes";

  // ---- Errors ----

  /**
   * Groq's `tool_use_failed` ("Failed to call a function. Please adjust your prompt. See
   * 'failed_generation' for more details.") is a bad sample, not a bad request: retryable, with
   * the failed generation in the message.
   */
  retryToolUseFailed: boolean;
}

export type QuirkSwitchName = keyof QuirkSwitches;

/** A preset with its overrides applied. */
export interface ResolvedQuirks {
  preset: string;
  switches: QuirkSwitches;
  /** The switches set explicitly in the config, in the order given. */
  overrides: QuirkSwitchName[];
}
