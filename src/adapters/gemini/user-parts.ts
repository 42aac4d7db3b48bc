/**
 * Neutral user content and tool results as Gemini parts. Gemini reads images, audio and documents
 * inline (`inlineData`) or by URI (`fileData`); text that is empty is left out ("contents.parts
 * must not be empty", and an empty text part is refused).
 */
import type { ImageSource, ResourceBlock, ToolResultBlock, ToolResultContent, UserContent } from "../../core/index.ts";
import type { WireFunctionResponse, WirePart } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

const MEDIA_BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
};

function guessMediaType(url: string): string | undefined {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  return extension ? MEDIA_BY_EXTENSION[extension] : undefined;
}

/** An image as a part: its bytes inline, or the URL as file data (a data URL is inline). */
export function imagePart(source: ImageSource): WirePart {
  if (source.kind === "base64") return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const inline = DATA_URL.exec(source.url);
  if (inline) return { inlineData: { mimeType: inline[1]!, data: inline[2]! } };
  const mimeType = source.mediaType ?? guessMediaType(source.url);
  return { fileData: { fileUri: source.url, ...(mimeType ? { mimeType } : {}) } };
}

function text(value: string): WirePart[] {
  return value === "" ? [] : [{ text: value }];
}

function resourceParts(block: ResourceBlock): WirePart[] {
  const label = block.name ? `${block.name} (${block.uri})` : block.uri;
  if (block.text !== undefined) return text(`Resource ${label}:\n${block.text}`);
  if (block.blob !== undefined && block.mimeType) return [{ inlineData: { mimeType: block.mimeType, data: block.blob } }];
  if (block.link) return text(`Resource link: ${label}${block.description ? ` — ${block.description}` : ""}`);
  return text(`[resource ${label} omitted: no content]`);
}

export function userParts(content: readonly UserContent[]): WirePart[] {
  return flatMapped(content, (block): WirePart[] => {
    switch (block.type) {
      case "text":
        return text(block.text);
      case "image":
        return [imagePart(block.source)];
      case "audio":
        return [{ inlineData: { mimeType: block.mediaType, data: block.data } }];
      case "resource":
        return resourceParts(block);
    }
  });
}

/** A part of a tool result as text, for the `response` object. */
function resultText(part: ToolResultContent): string | undefined {
  switch (part.type) {
    case "text":
      return part.text;
    case "resource":
      return part.text ?? (part.link ? `Resource link: ${part.uri}` : undefined);
    default:
      return undefined;
  }
}

/** Media of a result Gemini 3 reads in `functionResponse.parts`; other models get a note in the text. */
function mediaOf(part: ToolResultContent): { mimeType: string; data: string } | undefined {
  if (part.type === "image" && part.source.kind === "base64") return { mimeType: part.source.mediaType, data: part.source.data };
  if (part.type === "audio") return { mimeType: part.mediaType, data: part.data };
  if (part.type === "resource" && part.blob !== undefined && part.mimeType) return { mimeType: part.mimeType, data: part.blob };
  return undefined;
}

function mediaNote(part: ToolResultContent): string | undefined {
  if (part.type === "image") return part.source.kind === "url" ? `[image: ${part.source.url}]` : `[${part.source.mediaType} image omitted: this model takes no media in function responses]`;
  if (part.type === "audio") return `[${part.mediaType} audio omitted: this model takes no media in function responses]`;
  if (part.type === "resource" && part.text === undefined && !part.link) return `[resource ${part.uri} (${part.mimeType ?? "binary"}) omitted]`;
  return undefined;
}

/**
 * A tool result as a `functionResponse`, named after its call (Gemini pairs them by name and
 * order). The `response` object is what Google documents: `{output}` for a result, `{error}` for
 * a failure; MCP structured content stands in for a result without text.
 */
export function functionResponse(result: ToolResultBlock, name: string, media: boolean, id?: string): WireFunctionResponse {
  const parts = media ? flatMapped(result.content, (part) => mediaOf(part) ?? []) : [];
  const texts = flatMapped(result.content, (part) => resultText(part) ?? (media && mediaOf(part) ? [] : (mediaNote(part) ?? [])));
  const joined = texts.join("\n");
  const value: unknown = joined === "" && result.structured !== undefined ? result.structured : joined;
  return {
    ...(id === undefined ? {} : { id }),
    name,
    response: result.isError ? { error: value } : { output: value },
    ...(parts.length > 0 ? { parts: parts.map((inlineData) => ({ inlineData })) } : {}),
  };
}
