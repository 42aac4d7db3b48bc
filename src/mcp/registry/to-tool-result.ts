/** MCP CallToolResult -> the neutral tool-result block. */
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ToolResultBlock, ToolResultContent } from "../../core/index.ts";

type McpContent = CallToolResult["content"][number];

function convertContent(item: McpContent): ToolResultContent {
  switch (item.type) {
    case "text":
      return { type: "text", text: item.text };
    case "image":
      return { type: "image", source: { kind: "base64", mediaType: item.mimeType, data: item.data } };
    case "audio":
      return { type: "audio", mediaType: item.mimeType, data: item.data };
    case "resource": {
      const r = item.resource;
      return {
        type: "resource",
        uri: r.uri,
        ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
        ...("text" in r && typeof r.text === "string" ? { text: r.text } : {}),
        ...("blob" in r && typeof r.blob === "string" ? { blob: r.blob } : {}),
      };
    }
    case "resource_link":
      return {
        type: "resource",
        uri: item.uri,
        link: true,
        name: item.name,
        ...(item.mimeType === undefined ? {} : { mimeType: item.mimeType }),
        ...(item.description === undefined ? {} : { description: item.description }),
      };
    default:
      // A content type newer than this gateway: show it rather than lose it.
      return { type: "text", text: JSON.stringify(item) };
  }
}

export function toToolResult(callId: string, name: string, result: CallToolResult): ToolResultBlock {
  const content = (result.content ?? []).map(convertContent);
  // Structured-only results: the model must still see the data.
  if (content.length === 0 && result.structuredContent !== undefined) {
    content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  return {
    type: "tool_result",
    callId,
    name,
    content,
    ...(result.structuredContent === undefined ? {} : { structured: result.structuredContent }),
    isError: result.isError === true,
  };
}

export function errorResult(callId: string, name: string, message: string): ToolResultBlock {
  return { type: "tool_result", callId, name, content: [{ type: "text", text: message }], isError: true };
}
