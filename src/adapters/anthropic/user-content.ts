/**
 * Neutral user content (also the content of tool results) as Anthropic blocks. Anthropic takes
 * text and images here; audio and MCP resources become text so the model still learns they exist.
 */
import type { AudioBlock, ImageBlock, ResourceBlock, UserContent } from "../../core/index.ts";
import type { Base64ImageSource, ImageBlockParam, TextBlockParam } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

export type UserWireBlock = TextBlockParam | ImageBlockParam;

/** Anthropic rejects empty and whitespace-only text blocks ("text content blocks must be non-empty"). */
export function isBlank(text: string): boolean {
  return text.trim() === "";
}

function text(value: string): UserWireBlock[] {
  return isBlank(value) ? [] : [{ type: "text", text: value }];
}

export function imageBlock(block: ImageBlock): ImageBlockParam {
  const { source } = block;
  if (source.kind === "url") return { type: "image", source: { type: "url", url: source.url } };
  // The SDK types list four media types; others are sent as given and the API names the problem.
  const mediaType = source.mediaType as Base64ImageSource["media_type"];
  return { type: "image", source: { type: "base64", media_type: mediaType, data: source.data } };
}

function audioBlocks(block: AudioBlock): UserWireBlock[] {
  return text(`[${block.mediaType} audio omitted: the Anthropic Messages API takes no audio input]`);
}

function resourceBlocks(block: ResourceBlock): UserWireBlock[] {
  const label = block.name ? `${block.name} (${block.uri})` : block.uri;
  if (block.text !== undefined) return text(`Resource ${label}:\n${block.text}`);
  if (block.blob !== undefined && block.mimeType?.startsWith("image/")) {
    return [imageBlock({ type: "image", source: { kind: "base64", mediaType: block.mimeType, data: block.blob } })];
  }
  if (block.link) return text(`Resource link: ${label}${block.description ? ` — ${block.description}` : ""}`);
  return text(`[resource ${label} (${block.mimeType ?? "binary"}) omitted: not representable for this provider]`);
}

export function toUserBlocks(content: UserContent[]): UserWireBlock[] {
  return flatMapped(content, (block): UserWireBlock[] => {
    switch (block.type) {
      case "text":
        return text(block.text);
      case "image":
        return [imageBlock(block)];
      case "audio":
        return audioBlocks(block);
      case "resource":
        return resourceBlocks(block);
    }
  });
}
