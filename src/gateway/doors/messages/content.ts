/**
 * Anthropic content blocks as neutral content. What the neutral model cannot hold is left out
 * here (server tool blocks, file references) and named in `dropped`, so the door can say so;
 * an Anthropic upstream still gets it, from the message kept whole beside the neutral one.
 */
import type {
  AssistantContent,
  ReasoningBlock,
  ToolResultBlock,
  ToolResultContent,
  UserContent,
} from "../../../core/index.ts";
import { CLIENT_ORIGIN, isGatewaySignature, reasoningFromThinking } from "./signatures.ts";
import type { WireBlock, WireResultPart } from "./request-schema.ts";
import { flatMapped } from "../../../core/flat-mapped.ts";

/** Block types left out of one conversion, for the warning header. */
export type Dropped = Set<string>;

type Block<T extends string> = Extract<WireBlock, { type: T }>;

/** How a loaded deferred tool reads for a model that has no tool search of its own. */
export function toolReferenceText(name: string): string {
  return `Tool "${name}" is now available.`;
}

function documentContent(block: Block<"document">): UserContent[] {
  const source = block.source;
  const title = block.title ? `${block.title}\n\n` : "";
  switch (source.type) {
    case "text":
      return [{ type: "text", text: title + source.data }];
    case "content":
      return typeof source.content === "string"
        ? [{ type: "text", text: title + source.content }]
        : flatMapped(source.content, (part) => (part.type === "text" && typeof part["text"] === "string" ? [{ type: "text" as const, text: part["text"] as string }] : []));
    case "base64":
      return [{ type: "resource", uri: `document:${block.title ?? "attachment"}`, mimeType: source.media_type, blob: source.data, ...(block.title ? { name: block.title } : {}) }];
    case "url":
      return [{ type: "resource", uri: source.url, link: true, ...(block.title ? { name: block.title } : {}) }];
    case "file":
      return [];
  }
}

/** A block a user (or a tool result) sent, in neutral terms; [] for what has none. */
function userPart(block: WireBlock | WireResultPart, dropped: Dropped): UserContent[] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: (block as Block<"text">).text }];
    case "image": {
      const source = (block as Block<"image">).source;
      if (source.type === "base64") return [{ type: "image", source: { kind: "base64", mediaType: source.media_type, data: source.data } }];
      if (source.type === "url") return [{ type: "image", source: { kind: "url", url: source.url } }];
      dropped.add("image (file_id)");
      return [];
    }
    case "document": {
      const parts = documentContent(block as Block<"document">);
      if (parts.length === 0) dropped.add("document (file_id)");
      return parts;
    }
    case "search_result": {
      const result = block as Block<"search_result">;
      return [{ type: "text", text: `${result.title} (${result.source})\n${result.content.map((part) => part.text).join("\n")}` }];
    }
    case "tool_reference":
      return [{ type: "text", text: toolReferenceText((block as Block<"tool_reference">).tool_name) }];
    default:
      dropped.add(block.type);
      return [];
  }
}

export function userContent(blocks: WireBlock[], dropped: Dropped): UserContent[] {
  return flatMapped(blocks, (block) => (block.type === "tool_result" ? [] : userPart(block, dropped)));
}

export function toolResult(block: Block<"tool_result">, names: ReadonlyMap<string, string>, dropped: Dropped): ToolResultBlock {
  const parts = block.content === undefined ? [] : typeof block.content === "string" ? [block.content] : block.content;
  const content = flatMapped<string | WireResultPart, ToolResultContent>(parts, (part): ToolResultContent[] => (typeof part === "string" ? [{ type: "text", text: part }] : userPart(part, dropped)));
  const name = names.get(block.tool_use_id);
  return {
    type: "tool_result",
    callId: block.tool_use_id,
    ...(name === undefined ? {} : { name }),
    content,
    isError: block.is_error === true,
  };
}

function redacted(data: string): ReasoningBlock {
  // A gateway-made redacted block carries its provider data like a gateway signature does.
  if (isGatewaySignature(data)) return { ...reasoningFromThinking("", data), redacted: true };
  return { type: "reasoning", text: "", redacted: true, providerData: { origin: CLIENT_ORIGIN, data: { redactedData: data } } };
}

export function assistantContent(blocks: WireBlock[]): AssistantContent[] {
  return flatMapped(blocks, (block): AssistantContent[] => {
    switch (block.type) {
      case "text":
        return [{ type: "text", text: (block as Block<"text">).text }];
      case "thinking": {
        const thinking = block as Block<"thinking">;
        return [reasoningFromThinking(thinking.thinking, thinking.signature)];
      }
      case "redacted_thinking":
        return [redacted((block as Block<"redacted_thinking">).data)];
      case "tool_use": {
        const call = block as Block<"tool_use">;
        return [{ type: "tool_call", id: call.id, name: call.name, arguments: call.input, rawArguments: JSON.stringify(call.input) }];
      }
      default:
        // Server tool blocks ran at Anthropic; only an Anthropic upstream can take them back.
        return [{ type: "opaque", providerData: { origin: CLIENT_ORIGIN, data: { block } } }];
    }
  });
}
