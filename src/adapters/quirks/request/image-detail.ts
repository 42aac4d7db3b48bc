/**
 * OpenAI's image `detail` off every image part, for servers that do not document it (their
 * strict parsers may refuse an unknown key; the others ignore it anyway).
 */
import type { RequestStep } from "./context.ts";
import type { WireContentPart, WireRequestMessage } from "./wire.ts";

function withoutDetail(part: WireContentPart): WireContentPart {
  const image = part["image_url"];
  if (part.type !== "image_url" || typeof image !== "object" || image === null || !("detail" in image)) return part;
  const { detail: _detail, ...rest } = image as { detail?: unknown };
  return { ...part, image_url: rest };
}

function strip(message: WireRequestMessage): WireRequestMessage {
  return Array.isArray(message.content) ? { ...message, content: message.content.map(withoutDetail) } : message;
}

export const dropImageDetail: RequestStep = (body) => ({ ...body, messages: body.messages.map(strip) });
