/**
 * The recorded Claude Code traffic (test/fixtures/clients/claude-code, see the README there):
 * loading the recorded requests and the exact SSE answers Claude Code accepted, a fake Anthropic
 * upstream that replays those answers, and a checker for Anthropic's streaming event grammar.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerResponse } from "node:http";
import { sendJson, startFakeUpstream, type FakeUpstream } from "./fake-upstream.ts";

const recordingsDir = join(fileURLToPath(new URL(".", import.meta.url)), "..", "fixtures", "clients", "claude-code");

/** The scenarios recorded with full request bodies. */
export const FULL_BODY_SCENARIOS = [
  "cc-01-default-read",
  "cc-02-model-flag-glm-4.6",
  "cc-04-model-sonnet-4-5",
  "cc-05-without-traffic-flags",
  "cc-07-bash-tool",
  "cc-08-mcp-toolsearch",
  "cc-09-mcp-no-toolsearch",
] as const;

export type Json = any;

export interface RecordedCall {
  scenario: string;
  seq: number;
  path: string;
  /** Lower-cased, as recorded (`x-api-key` is `<REDACTED>`). */
  headers: Record<string, string>;
  body: Json;
  /** The SSE bytes the recording fake answered with, which Claude Code accepted. */
  responseSse: string;
}

/** Every `POST /v1/messages` call of a scenario, in order, with the answer it got. */
export function loadRecordedCalls(scenario: string): RecordedCall[] {
  const dir = join(recordingsDir, scenario);
  const lines = (file: string) =>
    readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Json);
  const files = new Map<number, string>(lines("responses.jsonl").map((r) => [r.seq as number, r.file as string]));
  return lines("requests.jsonl")
    .filter((r) => r.method === "POST" && String(r.path).split("?")[0] === "/v1/messages")
    .map((r) => {
      const file = files.get(r.seq);
      if (!file?.endsWith(".sse")) throw new Error(`${scenario} #${r.seq}: no recorded SSE answer`);
      return { scenario, seq: r.seq, path: r.path, headers: r.headers, body: r.body, responseSse: readFileSync(join(dir, file), "utf8") };
    });
}

/** The headers Claude Code sent, as a client would send them again (transport headers and its key left out). */
export function replayHeaders(call: RecordedCall, apiKey = "sk-ant-client-dummy"): Record<string, string> {
  const skip = new Set(["host", "content-length", "connection", "accept-encoding", "x-api-key", "authorization"]);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) if (!skip.has(name)) headers[name] = value;
  headers["x-api-key"] = apiKey;
  return headers;
}

/* ---------------- SSE ---------------- */

export interface SseEvent {
  event: string;
  data: Json;
}

/** Parses an SSE body into its events (`event:` name and JSON `data:`). */
export function parseSse(text: string): SseEvent[] {
  return text
    .replaceAll("\r\n", "\n")
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      let event = "message";
      const data: string[] = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith(":")) continue;
        if (line.startsWith("event:")) event = line.slice("event:".length).trim();
        else if (line.startsWith("data:")) data.push(line.slice("data:".length).replace(/^ /, ""));
      }
      return { event, data: JSON.parse(data.join("\n")) as Json };
    });
}

export interface AssembledMessage {
  message: Json;
  /** Event types in order, pings included. */
  types: string[];
}

const DELTA_FOR_BLOCK: Record<string, string[]> = {
  text: ["text_delta", "citations_delta"],
  thinking: ["thinking_delta", "signature_delta"],
  redacted_thinking: [],
  tool_use: ["input_json_delta"],
  server_tool_use: ["input_json_delta"],
};

/**
 * Checks an Anthropic Messages event stream against the protocol's grammar (message_start; blocks
 * opened, filled and closed one at a time with consecutive indexes from 0, each with deltas of
 * its own kind; one message_delta; message_stop last; the SSE event name matching the data's
 * type) and assembles the message the way the SDK does. Throws, naming the event, on a violation.
 */
export function assembleAnthropicStream(events: SseEvent[]): AssembledMessage {
  const fail = (i: number, why: string): never => {
    throw new Error(`event #${i} (${JSON.stringify(events[i])}): ${why}\nall types: ${events.map((e) => e.event).join(",")}`);
  };
  const types = events.map((e) => e.event);
  let message: Json | undefined;
  let open: { index: number; block: Json; json: string } | undefined;
  let sawDelta = false;
  let stopped = false;
  for (const [i, { event, data }] of events.entries()) {
    if (data?.type !== event) fail(i, `event name "${event}" but data.type "${data?.type}"`);
    if (stopped) fail(i, "event after message_stop");
    if (event === "ping") continue;
    if (event === "error") fail(i, "error event");
    if (!message) {
      if (event !== "message_start") fail(i, "the stream must start with message_start");
      const start = data.message;
      if (start?.type !== "message" || start.role !== "assistant" || !Array.isArray(start.content) || start.content.length !== 0) fail(i, "message_start must hold an empty assistant message");
      if (typeof start.id !== "string" || typeof start.model !== "string" || typeof start.usage !== "object") fail(i, "message_start lacks id/model/usage");
      message = structuredClone(start);
      continue;
    }
    switch (event) {
      case "content_block_start": {
        if (open) fail(i, "a block started before the previous one stopped");
        if (sawDelta) fail(i, "a block after message_delta");
        if (data.index !== message.content.length) fail(i, `index ${data.index}, expected ${message.content.length}`);
        const block = structuredClone(data.content_block);
        if (!(block?.type in DELTA_FOR_BLOCK)) fail(i, `unknown block type ${block?.type}`);
        open = { index: data.index, block, json: "" };
        break;
      }
      case "content_block_delta": {
        if (!open || data.index !== open.index) fail(i, "a delta for a block that is not open");
        const delta = data.delta;
        if (!DELTA_FOR_BLOCK[open!.block.type]!.includes(delta?.type)) fail(i, `${delta?.type} in a ${open!.block.type} block`);
        if (delta.type === "text_delta") open!.block.text += delta.text;
        else if (delta.type === "thinking_delta") open!.block.thinking += delta.thinking;
        else if (delta.type === "signature_delta") open!.block.signature = delta.signature;
        else if (delta.type === "input_json_delta") open!.json += delta.partial_json;
        break;
      }
      case "content_block_stop": {
        if (!open || data.index !== open.index) fail(i, "a stop for a block that is not open");
        if (open!.block.type === "tool_use" || open!.block.type === "server_tool_use") {
          open!.block.input = open!.json === "" ? {} : JSON.parse(open!.json);
        }
        message.content.push(open!.block);
        open = undefined;
        break;
      }
      case "message_delta":
        if (open) fail(i, "message_delta with a block still open");
        if (sawDelta) fail(i, "a second message_delta");
        if (typeof data.delta?.stop_reason !== "string") fail(i, "message_delta without a stop_reason");
        sawDelta = true;
        message.stop_reason = data.delta.stop_reason;
        message.stop_sequence = data.delta.stop_sequence ?? null;
        message.usage = { ...message.usage, ...data.usage };
        break;
      case "message_stop":
        if (!sawDelta) fail(i, "message_stop before message_delta");
        stopped = true;
        break;
      default:
        fail(i, `unexpected event ${event}`);
    }
  }
  if (!message) throw new Error("empty stream");
  if (!stopped) throw new Error(`the stream did not end with message_stop: ${types.join(",")}`);
  return { message, types };
}

/** The content of a message as a client keeps it: the fields every block kind must carry, and only those. */
export function essentialContent(content: Json[]): Json[] {
  return content.map((block) => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "thinking":
        return { type: "thinking", thinking: block.thinking, signature: block.signature };
      case "tool_use":
        return { type: "tool_use", id: block.id, name: block.name, input: block.input };
      default:
        return block;
    }
  });
}

/* ---------------- the replaying Anthropic upstream ---------------- */

export interface ReplayingAnthropic extends FakeUpstream {
  /** The answers to give, in order, to the next `/v1/messages` requests (recorded SSE bodies). */
  answerWith(...sse: string[]): void;
  /** Requests to `/v1/messages` since the last `answerWith`. */
  messageRequests(): FakeUpstream["requests"];
}

function writeRecorded(res: ServerResponse, sse: string, stream: boolean): void {
  const headers = { "request-id": "req_replayed", "anthropic-organization-id": "00000000-0000-0000-0000-000000000000" };
  if (stream) {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
    res.end(sse);
    return;
  }
  // The non-streaming form of the same answer: the Message the events assemble to.
  sendJson(res, 200, assembleAnthropicStream(parseSse(sse)).message, headers);
}

/**
 * A fake Anthropic API that answers each `/v1/messages` request with the next recorded answer,
 * byte for byte when streamed (as a Message JSON when not), and records what it received.
 */
export async function startReplayingAnthropic(): Promise<ReplayingAnthropic> {
  let answers: string[] = [];
  const isMessages = (path: string) => path.split("?")[0] === "/v1/messages";
  const upstream = await startFakeUpstream((req, res) => {
    if (!isMessages(req.path)) return sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `no route ${req.path}` } });
    const answer = answers.shift();
    if (answer === undefined) {
      return sendJson(res, 500, { type: "error", error: { type: "api_error", message: "the replaying fake has no recorded answer left for this request" } });
    }
    writeRecorded(res, answer, req.body?.stream === true);
  });
  return {
    ...upstream,
    answerWith(...sse) {
      answers = [...sse];
      upstream.requests.length = 0;
    },
    messageRequests: () => upstream.requests.filter((r) => isMessages(r.path)),
  };
}
