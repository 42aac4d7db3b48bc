/**
 * The neutral conversation model: the only vocabulary the layers share.
 * Adapters translate it to and from each provider's wire format; the loop and the gateway
 * work on it alone. Plain data only (JSON-serialisable), so it can be stored and replayed.
 */

/** JSON Schema as received from MCP servers or clients. Kept loose on purpose: it is data. */
export type JsonSchema = { [key: string]: unknown };

/**
 * Opaque provider data that must travel back to the provider that produced it
 * (Anthropic thinking signatures, redacted thinking, Gemini thought signatures, MiniMax
 * reasoning details). `origin` names the provider instance (its config key) that produced it,
 * so an adapter sends it back only to where it came from and never forges it for another.
 */
export interface ProviderData {
  origin: string;
  data: { [key: string]: unknown };
}

export interface TextBlock {
  type: "text";
  text: string;
  providerData?: ProviderData;
}

export type ImageSource =
  | { kind: "base64"; mediaType: string; data: string }
  | { kind: "url"; url: string; mediaType?: string };

export interface ImageBlock {
  type: "image";
  source: ImageSource;
  /** OpenAI's image `detail` (resolution, and so cost), for providers that take it. */
  detail?: "auto" | "low" | "high";
}

export interface AudioBlock {
  type: "audio";
  mediaType: string;
  /** base64 */
  data: string;
}

/** An MCP embedded resource or resource link, kept so clients that understand it can use it. */
export interface ResourceBlock {
  type: "resource";
  uri: string;
  mimeType?: string;
  /** Text contents when the resource is textual. */
  text?: string;
  /** base64 contents when the resource is binary. */
  blob?: string;
  /** True for an MCP `resource_link` (a pointer, no contents). */
  link?: boolean;
  name?: string;
  description?: string;
}

export interface ToolCallBlock {
  type: "tool_call";
  id: string;
  name: string;
  /** Parsed arguments; `{}` when the model sent none. */
  arguments: { [key: string]: unknown };
  /** The argument text exactly as the model produced it (may differ from JSON.stringify(arguments)). */
  rawArguments: string;
  /** Set when `rawArguments` could not be parsed as a JSON object: what went wrong. */
  argumentsError?: string;
  providerData?: ProviderData;
}

export type ToolResultContent = TextBlock | ImageBlock | AudioBlock | ResourceBlock;

export interface ToolResultBlock {
  type: "tool_result";
  callId: string;
  /** The tool's name, when known (some providers want it on the result). */
  name?: string;
  content: ToolResultContent[];
  /** MCP `structuredContent`, passed along for clients that read it. */
  structured?: unknown;
  isError: boolean;
}

export interface ReasoningBlock {
  type: "reasoning";
  text: string;
  /** Redacted reasoning: no readable text, only opaque data in `providerData`. */
  redacted?: boolean;
  providerData?: ProviderData;
}

/**
 * A message exactly as the client sent it in a provider's own protocol, for an adapter of that
 * protocol to send on unchanged (cache hints, block types and fields the neutral model has no
 * words for). Adapters of other protocols use the neutral content beside it. Absent `message`
 * marks the request's top-level system prompt, which travels in the request's passthrough body.
 */
export interface MessagePassthrough {
  protocol: "anthropic-messages";
  message?: { [key: string]: unknown };
}

/**
 * An answer's block the neutral model has no words for (Anthropic's server tools: a
 * `server_tool_use` and its `web_search_tool_result` ran on the provider's side). Kept whole in
 * `providerData`, so it goes back to the provider that made it and to clients of its protocol;
 * everyone else leaves it out.
 */
export interface OpaqueBlock {
  type: "opaque";
  providerData: ProviderData;
}

export type UserContent = TextBlock | ImageBlock | AudioBlock | ResourceBlock;
export type AssistantContent = TextBlock | ReasoningBlock | ToolCallBlock | OpaqueBlock;

export interface SystemMessage {
  role: "system";
  content: TextBlock[];
  /** The participant's name (OpenAI's message `name`), for providers that take one. */
  name?: string;
  passthrough?: MessagePassthrough;
}
export interface UserMessage {
  role: "user";
  content: UserContent[];
  /** The participant's name (OpenAI's message `name`), for providers that take one. */
  name?: string;
  passthrough?: MessagePassthrough;
}
export interface AssistantMessage {
  role: "assistant";
  content: AssistantContent[];
  /** The participant's name (OpenAI's message `name`), for providers that take one. */
  name?: string;
  passthrough?: MessagePassthrough;
}
/** Results of tool calls. Several results of one turn may share one message. */
export interface ToolMessage {
  role: "tool";
  content: ToolResultBlock[];
  passthrough?: MessagePassthrough;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
export type Role = Message["role"];
