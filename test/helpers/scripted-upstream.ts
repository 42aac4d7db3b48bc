/**
 * Scripted fake providers that speak the real wire protocols (OpenAI Chat Completions and
 * Anthropic Messages, streamed and not) over local HTTP. Each request is answered by a script
 * step, so a test can make "the model" call tools and then answer, and inspect every request
 * the gateway sent upstream.
 */
import type { ServerResponse } from "node:http";
import { startFakeUpstream, sendJson, type FakeUpstream, type Handler, type RecordedRequest } from "./fake-upstream.ts";

export interface ScriptedCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ScriptedReply {
  text?: string;
  reasoning?: string;
  calls?: ScriptedCall[];
  /** Holds the (streamed) response open after the first text chunk until the test says so. */
  hang?: Promise<void>;
}

export type Script = (request: RecordedRequest, index: number) => ScriptedReply;

export function replies(...steps: ScriptedReply[]): Script {
  return (_request, index) => steps[Math.min(index, steps.length - 1)]!;
}

export interface ScriptedUpstream extends FakeUpstream {
  /** Replaces the script and forgets earlier requests (one script per test). */
  script(next: Script | ScriptedReply[]): void;
  /** Requests to the chat endpoint only, in order. */
  chatRequests(): RecordedRequest[];
  /** Resolves when the connection of the n-th chat request closed (client or gateway gone). */
  closed(index: number): Promise<void>;
}

function splitInTwo(text: string): string[] {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].filter((part) => part !== "");
}

/* ---------------- OpenAI Chat Completions ---------------- */

function openAiMessage(reply: ScriptedReply) {
  return {
    role: "assistant",
    content: reply.text ?? (reply.calls?.length ? null : ""),
    ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
    ...(reply.calls?.length
      ? { tool_calls: reply.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }
      : {}),
  };
}

const openAiUsage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

async function writeOpenAiStream(res: ServerResponse, reply: ScriptedReply, model: string): Promise<void> {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model };
  const send = (choice: object | null, usage?: object) =>
    res.write(`data: ${JSON.stringify({ ...base, choices: choice ? [choice] : [], ...(usage ? { usage } : {}) })}\n\n`);
  res.writeHead(200, { "content-type": "text/event-stream" });
  send({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null });
  if (reply.reasoning) send({ index: 0, delta: { reasoning_content: reply.reasoning }, finish_reason: null });
  const parts = splitInTwo(reply.text ?? "");
  for (const [i, part] of parts.entries()) {
    send({ index: 0, delta: { content: part }, finish_reason: null });
    if (i === 0 && reply.hang) await reply.hang;
  }
  for (const [index, call] of (reply.calls ?? []).entries()) {
    const args = splitInTwo(JSON.stringify(call.arguments));
    send({ index: 0, delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, finish_reason: null });
    for (const piece of args) send({ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null });
  }
  send({ index: 0, delta: {}, finish_reason: reply.calls?.length ? "tool_calls" : "stop" });
  send(null, openAiUsage);
  res.end("data: [DONE]\n\n");
}

/* ---------------- Anthropic Messages ---------------- */

/** The signature the fake gives a reasoning text: stands for Anthropic's, which only Anthropic can verify. */
export function fakeSignature(reasoning: string): string {
  return `sig-${Buffer.from(reasoning).toString("base64url")}`;
}

function anthropicContent(reply: ScriptedReply) {
  return [
    ...(reply.reasoning ? [{ type: "thinking", thinking: reply.reasoning, signature: fakeSignature(reply.reasoning) }] : []),
    ...(reply.text ? [{ type: "text", text: reply.text }] : []),
    ...(reply.calls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.arguments })),
  ];
}

function anthropicMessage(reply: ScriptedReply, model: string) {
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model,
    content: anthropicContent(reply),
    stop_reason: reply.calls?.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 11, output_tokens: 7 },
  };
}

async function writeAnthropicStream(res: ServerResponse, reply: ScriptedReply, model: string): Promise<void> {
  const send = (data: { type: string } & Record<string, unknown>) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  res.writeHead(200, { "content-type": "text/event-stream" });
  send({ type: "message_start", message: { ...anthropicMessage({}, model), content: [], stop_reason: null, usage: { input_tokens: 11, output_tokens: 1 } } });
  let index = 0;
  if (reply.reasoning) {
    send({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const part of splitInTwo(reply.reasoning)) send({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: part } });
    send({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: fakeSignature(reply.reasoning) } });
    send({ type: "content_block_stop", index });
    index++;
  }
  if (reply.text) {
    send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const [i, part] of splitInTwo(reply.text).entries()) {
      send({ type: "content_block_delta", index, delta: { type: "text_delta", text: part } });
      if (i === 0 && reply.hang) await reply.hang;
    }
    send({ type: "content_block_stop", index });
    index++;
  }
  for (const call of reply.calls ?? []) {
    send({ type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    for (const piece of splitInTwo(JSON.stringify(call.arguments))) send({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
    send({ type: "content_block_stop", index });
    index++;
  }
  send({ type: "message_delta", delta: { stop_reason: reply.calls?.length ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 7 } });
  send({ type: "message_stop" });
  res.end();
}

/** What the fake's `count_tokens` answers. */
export const COUNTED_TOKENS = 4242;

/* ---------------- server ---------------- */

export async function startScriptedUpstream(protocol: "openai" | "anthropic", initial: Script = replies({ text: "ok" })): Promise<ScriptedUpstream> {
  let script = initial;
  let closedWaiters: { resolve: () => void; promise: Promise<void> }[] = [];
  const waiter = (i: number) => {
    while (closedWaiters.length <= i) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      closedWaiters.push({ resolve, promise });
    }
    return closedWaiters[i]!;
  };
  let count = 0;
  const isChat = (path: string) => (protocol === "openai" ? path.endsWith("/chat/completions") : path.split("?")[0]!.endsWith("/v1/messages"));
  const scripted: Handler = async (req, res) => {
    if (protocol === "anthropic" && req.path.startsWith("/v1/messages/count_tokens")) return sendJson(res, 200, { input_tokens: COUNTED_TOKENS });
    if (!isChat(req.path)) return sendJson(res, 404, { error: { message: `no route ${req.path}` } });
    const index = count++;
    res.on("close", () => waiter(index).resolve());
    const reply = script(req, index);
    const model = String(req.body?.model ?? "fake-model");
    if (protocol === "openai") {
      if (req.body?.stream) return writeOpenAiStream(res, reply, model);
      return sendJson(res, 200, { id: "chatcmpl-fake", object: "chat.completion", created: 1, model, choices: [{ index: 0, message: openAiMessage(reply), finish_reason: reply.calls?.length ? "tool_calls" : "stop" }], usage: openAiUsage });
    }
    if (req.body?.stream) return writeAnthropicStream(res, reply, model);
    return sendJson(res, 200, anthropicMessage(reply, model));
  };
  const upstream = await startFakeUpstream(scripted);
  return {
    ...upstream,
    script(next) {
      upstream.handle(scripted); // undo any raw handler a test installed
      script = Array.isArray(next) ? replies(...next) : next;
      count = 0;
      closedWaiters = [];
      upstream.requests.length = 0;
    },
    chatRequests: () => upstream.requests.filter((r) => isChat(r.path)),
    closed: (index) => waiter(index).promise,
  };
}
