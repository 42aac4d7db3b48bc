// A minimal OpenAI-compatible upstream for benchmarks (plain node, no TypeScript loader).
// Answers instantly (a prompt with "long-answer" gets a 200-chunk stream); when the last message is not a tool result and the request offers the
// everything__echo tool with "call-tool" in the prompt, it asks for that tool first.
import { createServer } from "node:http";

const port = Number(process.env.PORT ?? 0);
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const SHORT = "Hello from the benchmark upstream.";
// A prompt containing "long-answer" gets 200 words: one stream chunk each.
const LONG = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
const base = (model) => ({ id: "chatcmpl-bench", created: 1, model });

function wantsTool(body) {
  const last = body.messages.at(-1);
  return last?.role === "user" && String(last.content).includes("call-tool") && (body.tools ?? []).some((t) => t.function.name === "everything__echo");
}

function reply(body) {
  if (wantsTool(body)) {
    return { content: null, tool_calls: [{ id: `call_${Math.random().toString(36).slice(2, 10)}`, type: "function", function: { name: "everything__echo", arguments: '{"message":"bench"}' } }] };
  }
  const last = body.messages.at(-1);
  return { content: last?.role === "user" && String(last.content).includes("long-answer") ? LONG : SHORT };
}

function stream(res, body, message) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta, finish = null) => `data: ${JSON.stringify({ ...base(body.model), object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: "assistant", content: "" });
  if (message.tool_calls) {
    const call = message.tool_calls[0];
    out += chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments } }] });
    out += chunk({}, "tool_calls");
  } else {
    for (const word of message.content.split(" ")) out += chunk({ content: `${word} ` });
    out += chunk({}, "stop");
  }
  out += `data: ${JSON.stringify({ ...base(body.model), object: "chat.completion.chunk", choices: [], usage })}\n\n`;
  res.end(`${out}data: [DONE]\n\n`);
}

// Anthropic's Messages API: the same short answer, whole or as its event stream.
const anthropicUsage = { input_tokens: 10, output_tokens: 5 };
const anthropicMessage = (model, content) => ({ id: "msg_bench", type: "message", role: "assistant", model, content, stop_reason: "end_turn", stop_sequence: null, usage: anthropicUsage });

function anthropic(res, body) {
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify(anthropicMessage(body.model, [{ type: "text", text: SHORT }])));
  }
  const event = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream" });
  let out = event({ type: "message_start", message: anthropicMessage(body.model, []) });
  out += event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  for (const word of SHORT.split(" ")) out += event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `${word} ` } });
  out += event({ type: "content_block_stop", index: 0 });
  out += event({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } });
  res.end(out + event({ type: "message_stop" }));
}

// OpenAI's Responses API: the same short answer, whole or as its semantic event stream.
const responsesUsage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
const responseObject = (model, status, output) => ({ id: "resp_bench", object: "response", created_at: 1, status, model, output, usage: status === "completed" ? responsesUsage : null });
const messageItem = (text) => ({ type: "message", id: "msg_bench", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });

function responses(res, body) {
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify(responseObject(body.model, "completed", [messageItem(SHORT)])));
  }
  let sequence = 0;
  const event = (type, fields) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream" });
  let out = event("response.created", { response: responseObject(body.model, "in_progress", []) });
  out += event("response.output_item.added", { output_index: 0, item: { ...messageItem(""), status: "in_progress", content: [] } });
  out += event("response.content_part.added", { item_id: "msg_bench", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
  for (const word of SHORT.split(" ")) out += event("response.output_text.delta", { item_id: "msg_bench", output_index: 0, content_index: 0, delta: `${word} ` });
  out += event("response.output_text.done", { item_id: "msg_bench", output_index: 0, content_index: 0, text: SHORT });
  out += event("response.output_item.done", { output_index: 0, item: messageItem(SHORT) });
  res.end(out + event("response.completed", { response: responseObject(body.model, "completed", [messageItem(SHORT)]) }));
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
    if (req.url.startsWith("/v1/messages")) return anthropic(res, body);
    if (req.url.startsWith("/v1/responses")) return responses(res, body);
    const message = reply(body);
    if (body.stream) return stream(res, body, message);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...base(body.model), object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: message.tool_calls ? "tool_calls" : "stop" }], usage }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () => process.stdout.write(`listening ${server.address().port}\n`));
