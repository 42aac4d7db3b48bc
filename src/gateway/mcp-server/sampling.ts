/**
 * `sampling/createMessage` answered by the gateway itself, with `gateway.sampling.model`, for
 * clients that do not support sampling: the MCP messages become the neutral conversation, one
 * model call is made (retries and fallbacks as configured), and its text is the answer.
 */
import type { CreateMessageRequest, CreateMessageResult } from "@modelcontextprotocol/server";
import type { ChatRequest, Message, UserContent } from "../../core/index.ts";
import { resilientModel } from "../routing/resilient-model.ts";
import { ErrorCode, mcpError } from "./errors.ts";
import { callOptions, NO_TOOLS, resolve, type ModelDeps } from "./model-runner.ts";

type SamplingParams = CreateMessageRequest["params"];
type SamplingContent = SamplingParams["messages"][number]["content"];

function blocks(content: SamplingContent): Record<string, unknown>[] {
  return (Array.isArray(content) ? content : [content]) as Record<string, unknown>[];
}

function toUserContent(block: Record<string, unknown>): UserContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: String(block.text ?? "") };
    case "image":
      return { type: "image", source: { kind: "base64", mediaType: String(block.mimeType), data: String(block.data) } };
    case "audio":
      return { type: "audio", mediaType: String(block.mimeType), data: String(block.data) };
    default:
      throw mcpError(ErrorCode.InvalidParams, `sampling content of type "${String(block.type)}" is not supported by the gateway's sampling model`);
  }
}

export function samplingToChatRequest(params: SamplingParams, modelId: string): ChatRequest {
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    throw mcpError(ErrorCode.InvalidParams, "sampling with tools is not supported by the gateway's sampling model");
  }
  const messages: Message[] = [];
  if (params.systemPrompt) messages.push({ role: "system", content: [{ type: "text", text: params.systemPrompt }] });
  for (const message of params.messages) {
    const content = blocks(message.content).map(toUserContent);
    if (message.role === "user") messages.push({ role: "user", content });
    else messages.push({ role: "assistant", content: content.map((b) => ({ type: "text" as const, text: b.type === "text" ? b.text : `[${b.type}]` })) });
  }
  return {
    model: modelId,
    messages,
    maxTokens: params.maxTokens,
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.stopSequences === undefined ? {} : { stop: params.stopSequences }),
  };
}

export async function sampleWithModel(modelName: string, params: SamplingParams, deps: ModelDeps, signal: AbortSignal): Promise<CreateMessageResult> {
  let model;
  try {
    model = await resolve(modelName, deps);
  } catch (error) {
    throw mcpError(ErrorCode.InternalError, `gateway.sampling.model: ${error instanceof Error ? error.message : String(error)}`);
  }
  const request = samplingToChatRequest(params, model.modelId);
  const runner = resilientModel({ ...callOptions(model, deps), tools: NO_TOOLS, schemaTarget: model.provider.schemaTarget });
  let result;
  try {
    result = await runner.complete(request, signal);
  } catch (error) {
    throw mcpError(ErrorCode.InternalError, `sampling with ${modelName} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = result.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const stopReason = result.stopReason === "stop" ? "endTurn" : result.stopReason === "length" ? "maxTokens" : result.stopReason;
  return { role: "assistant", content: { type: "text", text }, model: result.model || model.modelId, stopReason };
}
