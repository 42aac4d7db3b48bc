/**
 * The agent loop over the neutral model: call the model with the conversation and every tool,
 * run the gateway's tool calls of the turn in parallel, append the results, repeat — until the
 * model answers, calls a client tool, the turn budget runs out, a hook stops it, or the caller
 * aborts. Knows nothing of HTTP, providers' wire formats or MCP.
 */
import {
  addUsage,
  emptyUsage,
  toGatewayError,
  type AssistantContent,
  type AssistantMessage,
  type ChatRequest,
  type ChatResult,
  type Message,
  type ToolCallBlock,
} from "../core/index.ts";
import { callModel, TURN_TEXT_SEPARATOR, type TurnTextState } from "./call-model.ts";
import { runTools } from "./run-tools.ts";
import type { LoopEvent, LoopOptions, LoopOutcome, LoopStopReason, ToolExecution } from "./types.ts";

interface Progress {
  messages: Message[];
  newMessages: Message[];
  usage: ReturnType<typeof emptyUsage>;
  tools: ToolExecution[];
  /** Text and reasoning the client sees, accumulated over turns. */
  visible: AssistantContent[];
  text: TurnTextState;
}

export async function* runAgentLoop(options: LoopOptions): AsyncGenerator<LoopEvent, LoopOutcome> {
  const clientTools = options.request.tools ?? [];
  const clientToolNames = new Set(clientTools.map((tool) => tool.name));
  // Deferred client tools are not offered, but a call to one still goes back to the client.
  const offered = clientTools.filter((tool) => !tool.deferred);
  const tools = [...options.tools.definitions(options.schemaTarget).filter((t) => !clientToolNames.has(t.name)), ...offered];
  const progress: Progress = {
    messages: [...options.request.messages],
    newMessages: [],
    usage: emptyUsage(),
    tools: [],
    visible: [],
    text: { clientCallCount: 0 },
  };
  try {
    for (let turn = 1; ; turn++) {
      options.signal?.throwIfAborted();
      yield { type: "turn_start", turn };
      const result = yield* modelTurn(options, turn, tools, clientToolNames, progress);
      const assistant = result.message;
      const calls = assistant.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
      const clientCalls = calls.filter((call) => clientToolNames.has(call.name));
      const gatewayCalls = calls.filter((call) => !clientToolNames.has(call.name));
      collectVisible(progress, assistant);

      const finished = finishedWithoutTools(result, calls.length, clientCalls.length, turn, options.maxIterations);
      if (finished) {
        appendMessage(progress, assistant);
        yield { type: "turn_end", turn };
        return yield* done(outcome(progress, finished, result, turn));
      }
      const executions = yield* runTools(options, turn, gatewayCalls);
      progress.tools.push(...executions);
      const results = executions.map((e) => e.result);
      appendMessage(progress, assistant);
      if (results.length > 0) appendMessage(progress, { role: "tool", content: results });
      yield { type: "turn_end", turn };
      if (clientCalls.length > 0) {
        return yield* done(clientToolsOutcome(progress, result, turn, clientCalls));
      }
      const verdict = await options.hooks?.onTurnEnd?.({ turn, messages: progress.messages });
      if (verdict?.stop) return yield* done(outcome(progress, "hook", result, turn));
    }
  } catch (error) {
    const failure = options.signal?.aborted ? toGatewayError(options.signal.reason ?? error) : toGatewayError(error);
    yield { type: "error", error: failure };
    throw failure;
  }
}

async function* modelTurn(
  options: LoopOptions,
  turn: number,
  tools: LoopOptions["request"]["tools"] & {},
  clientToolNames: ReadonlySet<string>,
  progress: Progress,
): AsyncGenerator<LoopEvent, ChatResult> {
  let request: ChatRequest = { ...options.request, messages: progress.messages, ...(tools.length > 0 ? { tools } : { tools: [] }) };
  if (tools.length === 0) {
    // Nothing to call: tool_choice/parallel_tool_calls would only make providers reject the request.
    delete request.toolChoice;
    delete request.parallelToolCalls;
  } else if (turn > 1 && request.toolChoice && request.toolChoice.type !== "auto" && request.toolChoice.type !== "none") {
    // A forced tool choice applies to the client's first turn; repeating it would loop forever.
    request.toolChoice = { type: "auto" };
  }
  request = (await options.hooks?.beforeModelCall?.({ turn, request })) ?? request;
  const result = yield* callModel(options, request, clientToolNames, progress.text);
  progress.usage = addUsage(progress.usage, result.usage);
  yield { type: "usage", usage: result.usage };
  yield { type: "model_response", turn, result };
  await options.hooks?.afterModelCall?.({ turn, result });
  return result;
}

/**
 * The turn ends the loop when the model called no tools, or when it called only the gateway's
 * tools and no more turns are allowed. Client calls are always handed back: the client, not the
 * turn budget, decides what happens next.
 */
function finishedWithoutTools(result: ChatResult, callCount: number, clientCallCount: number, turn: number, maxIterations: number): LoopStopReason | undefined {
  if (callCount === 0) {
    if (result.stopReason === "length" || result.stopReason === "content_filter") return result.stopReason;
    return "stop";
  }
  return clientCallCount === 0 && turn >= maxIterations ? "max_iterations" : undefined;
}

/** Adds the turn's reasoning and text to what the client sees (texts of turns separated). */
function collectVisible(progress: Progress, assistant: AssistantMessage): void {
  for (const block of assistant.content) {
    if (block.type === "reasoning" && block.text !== "") progress.visible.push({ type: "reasoning", text: block.text });
    if (block.type === "text" && block.text !== "") {
      const hasText = progress.visible.some((b) => b.type === "text");
      progress.visible.push({ type: "text", text: hasText ? TURN_TEXT_SEPARATOR + block.text : block.text });
    }
  }
}

function appendMessage(progress: Progress, message: Message): void {
  progress.messages.push(message);
  progress.newMessages.push(message);
}

function mergedVisible(progress: Progress): AssistantContent[] {
  const reasoning = progress.visible.filter((b) => b.type === "reasoning").map((b) => (b as { text: string }).text).join("");
  const text = progress.visible.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("");
  return [
    ...(reasoning ? [{ type: "reasoning" as const, text: reasoning }] : []),
    ...(text ? [{ type: "text" as const, text }] : []),
  ];
}

function outcome(progress: Progress, stopReason: LoopStopReason, last: ChatResult, turns: number): LoopOutcome {
  return {
    stopReason,
    message: { role: "assistant", content: mergedVisible(progress) },
    newMessages: progress.newMessages,
    clientToolCalls: [],
    usage: progress.usage,
    turns,
    tools: progress.tools,
    last,
  };
}

function clientToolsOutcome(
  progress: Progress,
  last: ChatResult,
  turns: number,
  clientCalls: ToolCallBlock[],
): LoopOutcome {
  const base = outcome(progress, "client_tools", last, turns);
  return {
    ...base,
    message: { role: "assistant", content: [...base.message.content, ...clientCalls] },
    clientToolCalls: clientCalls,
  };
}

async function* done(result: LoopOutcome): AsyncGenerator<LoopEvent, LoopOutcome> {
  yield { type: "done", outcome: result };
  return result;
}
