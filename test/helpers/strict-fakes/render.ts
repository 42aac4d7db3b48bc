/**
 * Scripted assistant messages rendered the way a provider sends them: a `chat.completion` body,
 * or an SSE stream cut into deltas in that provider's style (whole tool calls in one chunk,
 * continuation deltas with `id: ""`, no `index`, …).
 */

export interface ScriptedCall {
  id: string;
  name: string;
  /** JSON text, or an object for servers that send objects (llama.cpp). */
  arguments: string | Record<string, unknown>;
  /** Gemini's `extra_content`. */
  extra?: Record<string, unknown>;
}

export interface ScriptedMessage {
  content?: string | null;
  reasoning_content?: string;
  reasoning_details?: Record<string, unknown>[];
  tool_calls?: ScriptedCall[];
  finish: string;
}

export interface StreamStyle {
  /** Each tool call whole in one delta (Gemini, Ollama, Mistral, Groq, xAI). */
  wholeCalls?: boolean;
  /** Tool-call fragments without `index` (Mistral). */
  noIndex?: boolean;
  /** What continuation fragments carry: nothing, or `id: ""` (vLLM) and `name: ""` (LM Studio). */
  continuationId?: "omit" | "empty";
  continuationName?: "omit" | "empty";
  /** Characters per text/argument delta. */
  piece?: number;
}

const USAGE = { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 };

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

function wireCall(call: ScriptedCall, index: number | undefined) {
  return {
    ...(index === undefined ? {} : { index }),
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
    ...(call.extra ? { extra_content: call.extra } : {}),
  };
}

export function renderCompletion(message: ScriptedMessage, model: string) {
  const { finish, tool_calls, ...fields } = message;
  return {
    id: "chatcmpl-strict",
    object: "chat.completion",
    created: 1,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", ...fields, ...(tool_calls ? { tool_calls: tool_calls.map((c) => wireCall(c, undefined)) } : {}) },
        finish_reason: finish,
      },
    ],
    usage: USAGE,
  };
}

function callDeltas(call: ScriptedCall, index: number, style: StreamStyle): object[] {
  const at = style.noIndex ? undefined : index;
  if (style.wholeCalls || typeof call.arguments !== "string") return [{ tool_calls: [wireCall(call, at)] }];
  const first = { tool_calls: [wireCall({ ...call, arguments: "" }, at)] };
  const rest = pieces(call.arguments, style.piece ?? 3).map((piece) => ({
    tool_calls: [
      {
        ...(at === undefined ? {} : { index: at }),
        ...(style.continuationId === "empty" ? { id: "" } : {}),
        function: { ...(style.continuationName === "empty" ? { name: "" } : {}), arguments: piece },
      },
    ],
  }));
  return [first, ...rest];
}

function detailDeltas(details: Record<string, unknown>[], size: number): object[] {
  return details.flatMap((detail) =>
    pieces(String(detail["text"] ?? ""), size).map((text) => ({ reasoning_details: [{ ...detail, text }] })),
  );
}

export function renderSse(message: ScriptedMessage, model: string, style: StreamStyle = {}): string {
  const size = style.piece ?? 3;
  const deltas: object[] = [{ role: "assistant", content: "" }];
  for (const piece of pieces(message.reasoning_content ?? "", size)) deltas.push({ reasoning_content: piece });
  deltas.push(...detailDeltas(message.reasoning_details ?? [], size));
  for (const piece of pieces(message.content ?? "", size)) deltas.push({ content: piece });
  (message.tool_calls ?? []).forEach((call, index) => deltas.push(...callDeltas(call, index, style)));
  const frame = (payload: object) => `data: ${JSON.stringify({ id: "chatcmpl-strict", object: "chat.completion.chunk", created: 1, model, ...payload })}\n\n`;
  return (
    deltas.map((delta) => frame({ choices: [{ index: 0, delta, finish_reason: null }] })).join("") +
    frame({ choices: [{ index: 0, delta: {}, finish_reason: message.finish }] }) +
    frame({ choices: [], usage: USAGE }) +
    "data: [DONE]\n\n"
  );
}
