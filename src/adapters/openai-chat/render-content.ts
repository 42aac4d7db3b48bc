import type { ImageSource, ToolResultBlock, ToolResultContent } from "../../core/index.ts";

/** An image as an `image_url` value: a data URL for inline bytes. */
export function imageUrl(source: ImageSource): string {
  return source.kind === "base64" ? `data:${source.mediaType};base64,${source.data}` : source.url;
}

function imageLabel(source: ImageSource): string {
  return source.kind === "base64" ? source.mediaType : (source.mediaType ?? source.url);
}

/**
 * Content as text, for where Chat Completions takes text only (tool messages). A short
 * placeholder tells the model something was there without sending its bytes.
 */
export function renderPart(part: ToolResultContent): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "image":
      return `[image: ${imageLabel(part.source)}]`;
    case "audio":
      return `[audio: ${part.mediaType}]`;
    case "resource":
      return part.text ?? `[resource: ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ""}]`;
  }
}

/** A tool result as the text of one `tool` message; structured content stands in for no content. */
export function renderToolResult(block: ToolResultBlock): string {
  if (block.content.length === 0 && block.structured !== undefined) return JSON.stringify(block.structured);
  return block.content.map(renderPart).join("\n");
}
