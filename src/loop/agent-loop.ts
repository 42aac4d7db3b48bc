/**
 * The agent loop over the neutral model: call the model with the conversation and every tool,
 * run the gateway's tool calls of the turn in parallel, append the results, repeat — until the
 * model answers, calls a client tool, the turn budget runs out, a hook stops it, or the caller
 * aborts. Before each call the history may be compacted (compaction.ts), and a search tool may
 * stand in for a large tool set (tool-search.ts). Knows nothing of HTTP, providers' wire
 * formats or MCP.
 */
import {
  addUsage,
  emptyUsage,
  GatewayError,
  toGatewayError,
  type AssistantContent,
  type AssistantMessage,
  type ChatRequest,
  type ChatResult,
  type Message,
  type ToolCallBlock,
} from "../core/index.ts";
import { extend } from "../core/extend.ts";
import { batchesOf } from "../core/event-batches.ts";
import { CallEvents, TURN_TEXT_SEPARATOR, type TurnTextState } from "./call-model.ts";
import { Compactor } from "./compaction.ts";
import { relay } from "../core/relay.ts";
import { runTools } from "./run-tools.ts";
import { deliver, pendingAtStop, runTurnTools } from "./steering.ts";
import { ToolOffer } from "./tool-search.ts";
import type { LoopBatches, LoopEvent, LoopOptions, LoopOutcome, LoopStopReason, ToolExecution } from "./types.ts";

interface Progress {
  messages: Message[];
  newMessages: Message[];
  usage: ReturnType<typeof emptyUsage>;
  tools: ToolExecution[];
  /** Text and reasoning the client sees, accumulated over turns. */
  visible: AssistantContent[];
  text: TurnTextState;
  compactor?: Compactor;
  offer?: ToolOffer;
}

/** What the last model call is told when the turns ran out (finalAnswer): sent with it only, never kept. */
export const FINAL_ANSWER_NOTE =
  "(No more tools can be called in this request: its budget of tool-calling turns is used up. Answer now, as well as you can, from what you have found so far.)";

/** The loop's events one by one (the MCP agent tool, the agent SDK, plan mode). */
export function runAgentLoop(options: LoopOptions): AsyncGenerator<LoopEvent, LoopOutcome> {
  return relay(runAgentLoopBatches(options), (batch) => batch);
}

/** The loop's events in batches (types.ts LoopBatches): what the doors drive. */
export async function* runAgentLoopBatches(options: LoopOptions): LoopBatches {
  const clientTools = options.request.tools ?? [];
  const clientToolNames = new Set(clientTools.map((tool) => tool.name));
  // Deferred client tools are not offered, but a call to one still goes back to the client.
  const offered = clientTools.filter((tool) => !tool.deferred);
  const gatewayTools = options.tools.definitions(options.schemaTarget).filter((t) => !clientToolNames.has(t.name));
  const offer = options.toolSearch && ToolOffer.needed(gatewayTools, options.toolSearch) ? new ToolOffer(gatewayTools, options.toolSearch, options.schemaTarget, options.request.messages) : undefined;
  if (offer) options = { ...options, tools: offer.wrap(options.tools) };
  const toolsOfTurn = () => [...(offer ? offer.definitions() : gatewayTools), ...offered];
  const progress: Progress = {
    messages: [...options.request.messages],
    newMessages: [],
    usage: emptyUsage(),
    tools: [],
    visible: [],
    text: { clientCallCount: 0 },
    ...(options.context ? { compactor: new Compactor(options.context, options.signal) } : {}),
    ...(offer ? { offer } : {}),
  };
  try {
    // The outcome: the `done` event carries it, yielded once below (not by a generator of its own),
    // with the last turn's closing events in the same batch.
    let ended: LoopOutcome;
    let closing: LoopEvent[];
    for (let turn = 1; ; turn++) {
      options.signal?.throwIfAborted();
      yield [{ type: "turn_start", turn }];
      const { result, held } = yield* modelTurn(options, turn, toolsOfTurn(), clientToolNames, progress, undefined, true);
      const assistant = result.message;
      const calls = assistant.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
      const clientCalls = calls.filter((call) => clientToolNames.has(call.name));
      const gatewayCalls = calls.filter((call) => !clientToolNames.has(call.name));
      offer?.noteCalls(gatewayCalls);
      collectVisible(progress, assistant);

      const finished = finishedWithoutTools(result, calls.length, clientCalls.length, turn, options.maxIterations);
      // The turn's closing events (held by modelTurn) leave with the loop's end when the turn ends
      // it with nothing to wait for in between: one step of the generator fewer per answer.
      const endsNow = finished !== undefined && !(finished === "max_iterations" && options.finalAnswer) && !(finished === "stop" && options.steering);
      if (held && !endsNow) yield held;
      if (finished === "max_iterations" && options.finalAnswer) {
        ended = yield* finalAnswer(options, turn, assistant, gatewayCalls, clientToolNames, progress);
        closing = [{ type: "turn_end", turn: turn + 1 }];
        break;
      }
      if (finished) {
        appendMessage(progress, assistant);
        // A user message queued for the run (steering.ts) keeps it going instead.
        // No await at all without a queue: each is a promise and a microtask on every answer.
        const queued = finished === "stop" && options.steering ? await pendingAtStop(options.steering) : undefined;
        if (queued) {
          yield [...deliver(queued.messages, queued.kind, turn, (m) => appendMessage(progress, m)), { type: "turn_end", turn }];
          continue;
        }
        ended = outcome(progress, finished, result, turn);
        closing = held && endsNow ? [...held, { type: "turn_end", turn }] : [{ type: "turn_end", turn }];
        break;
      }
      const { executions, steered } = yield* runTurnTools(options, turn, gatewayCalls);
      progress.tools.push(...executions);
      const results = executions.map((e) => e.result);
      appendMessage(progress, assistant);
      if (results.length > 0) appendMessage(progress, { role: "tool", content: results });
      closing = [...deliver(steered, "steer", turn, (m) => appendMessage(progress, m)), { type: "turn_end", turn }];
      if (clientCalls.length > 0) {
        ended = clientToolsOutcome(progress, result, turn, clientCalls);
        break;
      }
      // The turn is over before the hook looks at it.
      yield closing;
      closing = [];
      const verdict = options.hooks?.onTurnEnd ? await options.hooks.onTurnEnd({ turn, messages: progress.messages }) : undefined;
      if (verdict?.stop) {
        ended = outcome(progress, "hook", result, turn);
        break;
      }
    }
    yield [...closing, { type: "done", outcome: ended }];
    return ended;
  } catch (error) {
    const failure = options.signal?.aborted ? toGatewayError(options.signal.reason ?? error) : toGatewayError(error);
    yield [{ type: "error", error: failure }];
    throw failure;
  }
}

/**
 * The turns ran out with only the gateway's calls pending: they run (so every call has its
 * result), then one more model call without tools, told why, gives the answer.
 */
async function* finalAnswer(
  options: LoopOptions,
  turn: number,
  assistant: AssistantMessage,
  gatewayCalls: ToolCallBlock[],
  clientToolNames: ReadonlySet<string>,
  progress: Progress,
): AsyncGenerator<LoopEvent[], LoopOutcome> {
  const executions = yield* runTools(options, turn, gatewayCalls);
  progress.tools.push(...executions);
  appendMessage(progress, assistant);
  if (executions.length > 0) appendMessage(progress, { role: "tool", content: executions.map((e) => e.result) });
  const last = turn + 1;
  options.signal?.throwIfAborted();
  yield [{ type: "turn_end", turn }, { type: "turn_start", turn: last }];
  const { result } = yield* modelTurn(options, last, [], clientToolNames, progress, FINAL_ANSWER_NOTE);
  // Told no tool can be called: a call it makes anyway is not run, nor shown.
  const answer: AssistantMessage = { ...result.message, content: result.message.content.filter((b) => b.type !== "tool_call") };
  collectVisible(progress, answer);
  appendMessage(progress, answer);
  // Its turn_end goes out with the `done` event (runAgentLoopBatches).
  const stopReason: LoopStopReason = result.stopReason === "length" || result.stopReason === "content_filter" ? result.stopReason : "stop";
  return { ...outcome(progress, stopReason, result, last), finalAnswer: true };
}

/**
 * One model turn: the call, compacted first when the history is over its budget (and, when the
 * provider still says the conversation is over the model's context window while the client saw
 * nothing of the answer yet, compacted further and tried once more); then its usage and response
 * events, a batch per upstream read. One generator: each level of `yield*` costs promises on
 * every batch. With `hold`, the turn's closing events (usage, model_response, after the last
 * read's events when the client sees none of them) are returned for the caller to send on
 * instead of yielded, when no afterModelCall hook must see them go first: a turn that ends the
 * loop sends them with its end, in one batch.
 */
async function* modelTurn(
  options: LoopOptions,
  turn: number,
  tools: LoopOptions["request"]["tools"] & {},
  clientToolNames: ReadonlySet<string>,
  progress: Progress,
  note?: string,
  hold = false,
): AsyncGenerator<LoopEvent[], { result: ChatResult; held?: LoopEvent[] }> {
  const full = turnRequest(options, turn, tools, progress, note);
  const compactor = progress.compactor;
  // Awaited only when compaction has something to read or cut (a promise per call otherwise).
  const prepared = compactor ? compactor.prepare(full) : full;
  let request = prepared instanceof Promise ? await prepared : prepared;
  if (options.hooks?.beforeModelCall) request = (await options.hooks.beforeModelCall({ turn, request })) ?? request;
  let result: ChatResult | undefined;
  // The events of the read that brought the result, when the client sees none of them (a lone
  // model_start): they go out with the turn's closing events once the stream has ended, one step
  // of every generator above fewer per answer.
  let last: LoopEvent[] = [];
  for (let retried = false; result === undefined; retried = true) {
    // Set with the first event the client may see: a failure after that cannot be retried unseen.
    let visible = false;
    try {
      // Not streamed, the call yields nothing: awaited here, without a generator to delegate to.
      if (!options.stream) {
        result = await options.model.complete(request, options.signal);
        break;
      }
      const events = new CallEvents(clientToolNames, progress.text);
      // The stream ends right after its `done` (the adapters end it there): it is read to that end
      // rather than closed early, which would unwind every generator under it with return()
      // calls and skip what the retry layer does after a call that succeeded.
      for await (const batch of batchesOf(options.model, request, options.signal)) {
        if (result) continue;
        const out: LoopEvent[] = [];
        let seen = false;
        for (const event of batch) {
          if (event.type === "done") {
            result = event.result;
            break;
          }
          const loopEvent = events.of(event);
          if (loopEvent === undefined) continue;
          if (loopEvent.type !== "model_start") seen = true;
          out.push(loopEvent);
        }
        if (seen) visible = true;
        // What the client sees of the read that brought the result goes out at once, before the
        // stream's end is read (every generator below unwinding, the retry layer's bookkeeping):
        // a short answer, whole in one read, starts about 20 µs sooner (docs/performance.md).
        if (result && !seen) last = out;
        else if (out.length > 0) yield out;
      }
      if (!result) throw new Error("model stream ended without a result");
    } catch (error) {
      // The answer was whole: a failure while its stream wound down changes nothing of it.
      if (result) break;
      // Once, unseen: over the model's context window, compacted further and tried again.
      const overflow = !retried && error instanceof GatewayError && !visible ? error.contextOverflow : undefined;
      const retry = overflow && compactor ? await compactor.overflow(full, request, overflow) : undefined;
      if (!retry) throw error;
      request = (await options.hooks?.beforeModelCall?.({ turn, request: retry })) ?? retry;
    }
  }
  progress.usage = addUsage(progress.usage, result.usage);
  const closing: LoopEvent[] = [...last, { type: "usage", usage: result.usage }, { type: "model_response", turn, result }];
  if (hold && !options.hooks?.afterModelCall) return { result, held: closing };
  yield closing;
  if (options.hooks?.afterModelCall) await options.hooks.afterModelCall({ turn, result });
  return { result };
}

/** The request of a model call: the conversation so far (and a note for this call only), the turn's tools. */
function turnRequest(options: LoopOptions, turn: number, tools: LoopOptions["request"]["tools"] & {}, progress: Progress, note: string | undefined): ChatRequest {
  const messages: Message[] = note ? [...progress.messages, { role: "user", content: [{ type: "text", text: note }] }] : progress.messages;
  const request: ChatRequest = extend(options.request, { messages, tools: tools.length > 0 ? tools : [] });
  if (tools.length === 0) {
    // Nothing to call: tool_choice/parallel_tool_calls would only make providers reject the request.
    delete request.toolChoice;
    delete request.parallelToolCalls;
  } else if (turn > 1 && request.toolChoice && request.toolChoice.type !== "auto" && request.toolChoice.type !== "none") {
    // A forced tool choice applies to the client's first turn; repeating it would loop forever.
    request.toolChoice = { type: "auto" };
  }
  return request;
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
  const compaction = progress.compactor?.report;
  return {
    stopReason,
    message: { role: "assistant", content: mergedVisible(progress) },
    newMessages: progress.newMessages,
    clientToolCalls: [],
    usage: progress.usage,
    turns,
    tools: progress.tools,
    last,
    ...(compaction ? { compaction } : {}),
    ...(progress.offer ? { toolSearch: progress.offer.report() } : {}),
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

