/**
 * Neutral content as Responses input content: what a user message and a tool's output may hold
 * (text and images; files are the client's business). Audio and resources become text: a message
 * takes no audio part (`input_audio` is not message content in the SDK types), so a short
 * placeholder tells the model something was there without sending its bytes.
 */
import type { ImageBlock, ImageSource, ToolResultBlock, ToolResultContent } from "../../core/index.ts";
import type { ResponseFunctionCallOutputItem, ResponseInputContent } from "./wire.ts";

/** An image as an `image_url` value: a data URL for inline bytes. */
function imageUrl(source: ImageSource): string {
  return source.kind === "base64" ? `data:${source.mediaType};base64,${source.data}` : source.url;
}

/** A part as text, where the input has no part of its kind. */
function partText(part: Exclude<ToolResultContent, ImageBlock>): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "audio":
      return `[audio: ${part.mediaType}]`;
    case "resource":
      return part.text ?? `[resource: ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ""}]`;
  }
}

/**
 * A user message part. `detail` is required by the SDK's type of a message image; `auto` is what
 * the API assumes without one.
 */
export function inputPart(part: ToolResultContent): ResponseInputContent {
  if (part.type === "image") return { type: "input_image", image_url: imageUrl(part.source), detail: part.detail ?? "auto" };
  return { type: "input_text", text: partText(part) };
}

function outputPart(part: ToolResultContent): ResponseFunctionCallOutputItem {
  if (part.type === "image") return { type: "input_image", image_url: imageUrl(part.source), ...(part.detail ? { detail: part.detail } : {}) };
  return { type: "input_text", text: partText(part) };
}

/**
 * A tool result as a call output: its text (parts joined by newlines) — the form every server
 * takes — or, when it holds images, the list of parts, so the model sees the images. Structured
 * content stands in for no content.
 */
function output<Part>(result: ToolResultBlock, toPart: (part: ToolResultContent) => Part): string | Part[] {
  if (result.content.length === 0) return result.structured === undefined ? "" : JSON.stringify(result.structured);
  if (result.content.some((part) => part.type === "image")) return result.content.map(toPart);
  return result.content.map((part) => partText(part as Exclude<ToolResultContent, ImageBlock>)).join("\n");
}

/** A `function_call_output`'s output. */
export function toolOutput(result: ToolResultBlock): string | ResponseFunctionCallOutputItem[] {
  return output(result, outputPart);
}

/** A `custom_tool_call_output`'s output: its parts are typed as message content. */
export function customToolOutput(result: ToolResultBlock): string | ResponseInputContent[] {
  return output(result, inputPart);
}
