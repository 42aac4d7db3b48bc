/**
 * The Anthropic wire types this adapter speaks, taken from the official SDK so that a change of
 * the API shows up as a type error here, plus the few things the SDK types leave out.
 */
import type {
  ContentBlockParam,
  MessageCreateParamsBase,
  RawMessageStreamEvent,
} from "@anthropic-ai/sdk/resources/messages";

export type {
  Base64ImageSource,
  ContentBlock,
  ContentBlockParam,
  ImageBlockParam,
  Message,
  MessageParam,
  RawMessageStreamEvent,
  StopReason as WireStopReason,
  TextBlockParam,
  ThinkingConfigEnabled,
  Tool,
  ToolChoice as WireToolChoice,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages";

/**
 * The request body. SDK 1.12 no longer types the sampling parameters, but the API still takes
 * them for the models that support them; they are sent only when the client set them.
 */
export type WireParams = MessageCreateParamsBase & {
  temperature?: number;
  top_p?: number;
};

/**
 * What a stream may carry. The SDK drops `ping` by event name and throws on `event: error`, but a
 * server may still put those payloads under another event name, so they are typed here too.
 */
export type WireStreamEvent =
  | RawMessageStreamEvent
  | { type: "ping" }
  | { type: "error"; error?: { type?: string; message?: string } };

/** A turn while it is being built: always the array form, compacted to a string at the end. */
export interface WireTurn {
  role: "user" | "assistant";
  content: ContentBlockParam[];
}
