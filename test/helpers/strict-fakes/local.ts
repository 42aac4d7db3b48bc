/**
 * Local OpenAI-compatible servers, each with its real habit: Ollama sends whole calls in one
 * chunk, vLLM (tool parser off) leaves Hermes `<tool_call>` text in the content and refuses
 * `tool_choice: "auto"`, llama.cpp sends arguments as objects, LM Studio sends `id: ""` and
 * refuses it back.
 */
import { FINAL_ANSWER, offeredNames, TIME_ARGS, wantsAnswer, WEATHER_ARGS, type Body } from "./conversation.ts";
import { idMaker, openAiStyleReply } from "./openai.ts";
import type { ScriptedMessage, StreamStyle } from "./render.ts";
import type { FakeFamily, Rejection, Rule } from "./strict-fake.ts";

export type LocalFlavor = "ollama" | "vllm" | "llamacpp" | "lmstudio";

export const VLLM_AUTO_TOOL_CHOICE = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
export const LMSTUDIO_INVALID_MESSAGES = "[Server Error] Invalid 'messages' in payload. Please check the structure of your 'messages' and try again";
export const OLLAMA_OBJECT_ARGUMENTS = "json: cannot unmarshal object into Go struct field .messages.tool_calls.function.arguments of type string";

const vllmAutoToolChoice: Rule = (body) =>
  body.tool_choice === "auto"
    ? { status: 400, message: VLLM_AUTO_TOOL_CHOICE, body: { object: "error", message: VLLM_AUTO_TOOL_CHOICE, type: "BadRequestError", param: null, code: 400 } }
    : undefined;

/** LM Studio answers an empty id echoed back with its generic message error. */
const lmstudioEmptyIds: Rule = (body) => {
  const empty = body.messages.some(
    (m: Body) => (m.tool_calls ?? []).some((c: Body) => !c.id) || (m.role === "tool" && !m.tool_call_id),
  );
  return empty ? ({ status: 400, message: LMSTUDIO_INVALID_MESSAGES, body: { error: LMSTUDIO_INVALID_MESSAGES } } satisfies Rejection) : undefined;
};

/** Ollama's /v1 decodes arguments into a Go string. */
const ollamaStringArguments: Rule = (body) =>
  body.messages.some((m: Body) => (m.tool_calls ?? []).some((c: Body) => typeof c.function.arguments !== "string"))
    ? { status: 400, message: OLLAMA_OBJECT_ARGUMENTS, body: { error: { message: OLLAMA_OBJECT_ARGUMENTS, type: "invalid_request_error", param: null, code: null } } }
    : undefined;

export const LLAMACPP_BAD_ARGUMENTS = "Failed to parse tool call arguments as JSON";

/** llama-server parses the arguments of calls in the history (and fails with a 500: llama.cpp#25510). */
const llamacppJsonArguments: Rule = (body) => {
  const bad = body.messages.some((m: Body) =>
    (m.tool_calls ?? []).some((c: Body) => {
      try {
        JSON.parse(c.function.arguments);
        return false;
      } catch {
        return true;
      }
    }),
  );
  return bad
    ? { status: 500, message: LLAMACPP_BAD_ARGUMENTS, body: { error: { code: 500, message: LLAMACPP_BAD_ARGUMENTS, type: "server_error" } } }
    : undefined;
};

/** What vLLM's content looks like when its hermes parser is off: the calls as text, finish "stop". */
export function hermesText(calls: { name: string; arguments: object }[], broken = false): string {
  const body = calls.map((call) => JSON.stringify({ name: call.name, arguments: call.arguments }));
  // The hermes parser bug of vllm#22885: the final "}" of a call goes missing.
  const printed = broken ? body.map((json) => json.slice(0, -1)) : body;
  return `I'll check both.\n${printed.map((json) => `<tool_call>\n${json}\n</tool_call>`).join("\n")}`;
}

export interface LocalOptions {
  /** vLLM only: print the calls with the last "}" missing. */
  brokenHermes?: boolean;
}

function localReply(flavor: LocalFlavor, nextId: () => string, options: LocalOptions) {
  return (body: Body): ScriptedMessage => {
    if (wantsAnswer(body)) return { content: FINAL_ANSWER, finish: "stop" };
    const [weather, time] = offeredNames(body);
    if (flavor === "vllm") {
      const calls = [{ name: weather, arguments: WEATHER_ARGS }, { name: time, arguments: TIME_ARGS }];
      return { content: hermesText(calls, options.brokenHermes), finish: "stop" };
    }
    const message = openAiStyleReply(body, nextId);
    if (flavor === "llamacpp" && !body.stream) {
      return { ...message, tool_calls: message.tool_calls?.map((call, i) => ({ ...call, arguments: i === 0 ? WEATHER_ARGS : TIME_ARGS })) };
    }
    return message;
  };
}

const STYLES: Record<LocalFlavor, StreamStyle> = {
  ollama: { wholeCalls: true, piece: 5 },
  vllm: { piece: 2, continuationId: "empty" },
  llamacpp: { piece: 3 },
  lmstudio: { piece: 3, continuationName: "empty" },
};

const RULES: Record<LocalFlavor, Rule[]> = {
  ollama: [ollamaStringArguments],
  vllm: [vllmAutoToolChoice],
  llamacpp: [llamacppJsonArguments],
  lmstudio: [lmstudioEmptyIds],
};

export function localFamily(flavor: LocalFlavor, options: LocalOptions = {}): FakeFamily {
  const nextId = flavor === "lmstudio" ? () => "" : idMaker((n) => `call_${flavor}_${n}`);
  return { name: flavor, rules: RULES[flavor], reply: localReply(flavor, nextId, options), style: STYLES[flavor] };
}
