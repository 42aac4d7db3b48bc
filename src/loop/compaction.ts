/**
 * Context compaction: before a model call whose conversation (with the tools offered) passes a
 * share of the context budget, the oldest turns make way — dropped (`trim`) or replaced by a
 * summary a (cheap) summarizer model writes (`summarize`). What the model is sent changes; the
 * conversation the loop keeps, and the client's, does not.
 *
 * The rules, in order of what goes first:
 * - system messages always stay;
 * - whole turns (a user message and everything up to the next one) go, oldest first, but never
 *   the newest `keepRecentTurns`; a cut is always at a user message, so a tool call never loses
 *   its result and no result is left without its call;
 * - if that is not enough, large tool results of the turns kept are replaced by a short note
 *   (the call and its result stay paired), oldest first, then whole steps (an assistant message
 *   with its results) of the kept turns, oldest first — never the last user message nor the
 *   newest step.
 * Where the cut falls is remembered (`CompactionMemory`, by a digest of what was cut): the next
 * call, and the client's next request, start from it, so the summarizer runs only when the
 * threshold is passed again, and the prefix providers cache stays the same in between.
 */
import { hash } from "node:crypto";
import { estimateMessageTokens, estimateToolTokens } from "../core/token-estimate.ts";
import {
  type ChatModel,
  type ContextOverflow,
  type ChatRequest,
  type Message,
  type ToolResultBlock,
  type UserMessage,
} from "../core/index.ts";

export type CompactionStrategy = "trim" | "summarize" | "off";

/** Where the cut of a conversation fell, kept between model calls and between requests. */
export interface CompactionState {
  /** Leading messages of the conversation cut (system messages among them are still sent). */
  removed: number;
  /** Digest of those messages: the state applies only to a conversation that starts with them. */
  digest: string;
  /** User turns they held. */
  turns: number;
  /** The summary that stands for them (summarize). */
  summary?: string;
}

/** Keeps compaction states, per conversation (the caller scopes it, e.g. per API key). */
export interface CompactionMemory {
  get(key: string): Promise<CompactionState | undefined>;
  set(key: string, state: CompactionState): Promise<void>;
}

export interface ContextOptions {
  /** The context budget in tokens; without one, compaction happens only after a context-length error. */
  maxTokens?: number;
  /** Compact when the estimate passes this share of maxTokens. */
  threshold: number;
  strategy: CompactionStrategy;
  /** The newest user turns that always stay whole. */
  keepRecentTurns: number;
  /** Writes the summaries (summarize). Without one, summarize trims. */
  summarizer?: { model: ChatModel; modelId: string };
  memory?: CompactionMemory;
}

export interface CompactionReport {
  /** What set it off: the estimate passing the threshold, or the provider's context-length error. */
  reason: "threshold" | "context_length_error";
  strategy: "trim" | "summarize";
  /** User turns cut from the start of the conversation. */
  turnsRemoved: number;
  /** Messages not sent (cut turns, and steps of kept turns). */
  messagesRemoved: number;
  /** Tool results of kept turns replaced by a note. */
  resultsShortened: number;
  /** The estimate of the whole conversation and tools, and of what was sent. */
  tokensBefore: number;
  tokensAfter: number;
  /** Whether the summarizer was called for this request. */
  summarized: boolean;
}

/** The share of maxTokens a compaction aims for, below the threshold, so the next calls have room to grow. */
const TARGET_SHARE = 0.75;
/** After a context-length error: what was sent, shrunk to this share. */
const OVERFLOW_SHARE = 0.6;
/** A tool result is worth replacing by a note above this many tokens. */
const LARGE_RESULT = 200;

const estimates = new WeakMap<Message, number>();

/** A message's estimate, once per message object (a long history is estimated on every call). */
export function messageTokens(message: Message): number {
  const known = estimates.get(message);
  if (known !== undefined) return known;
  const tokens = estimateMessageTokens([message]);
  estimates.set(message, tokens);
  return tokens;
}

function sumTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message);
  return total;
}

/** Indexes of the messages that open a user turn (a user message; the start, when it is not one). */
export function turnStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, i) => {
    if (message.role === "user") starts.push(i);
  });
  return starts;
}

/**
 * The steps of messages[from, to): an assistant message with the tool messages after it (and
 * the assistant messages of the same turn's split parallel calls), a lone message otherwise.
 * System messages are not steps: they are never removed.
 */
function steps(messages: readonly Message[], from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  let i = from;
  while (i < to) {
    const role = messages[i]!.role;
    if (role === "system") {
      i++;
      continue;
    }
    let j = i + 1;
    if (role === "assistant") {
      while (j < to) {
        const next = messages[j]!;
        const previous = messages[j - 1]!;
        const splitCalls = next.role === "assistant" && previous.role === "assistant" && previous.content.some((b) => b.type === "tool_call");
        if (next.role !== "tool" && !splitCalls) break;
        j++;
      }
    }
    out.push([i, j]);
    i = j;
  }
  return out;
}

const digests = new WeakMap<Message, string>();

function messageDigest(message: Message): string {
  let digest = digests.get(message);
  if (digest === undefined) {
    // One-shot hashing: no Hash object per message (the same digest as createHash's).
    digest = hash("sha256", JSON.stringify(message), "base64url");
    digests.set(message, digest);
  }
  return digest;
}

/** A digest of the first `count` messages (each message's digest computed once). */
function digestOf(messages: readonly Message[], count: number): string {
  // The same digest as updating one hash with each message's digest in turn.
  let joined = "";
  for (let i = 0; i < count; i++) joined += messageDigest(messages[i]!);
  return hash("sha256", joined, "base64url").slice(0, 32);
}

/** The conversation's key in the memory: its opening (system prompt and first user message). */
export function conversationKey(messages: readonly Message[]): string | undefined {
  const first = messages.findIndex((m) => m.role === "user");
  return first < 0 ? undefined : digestOf(messages, first + 1);
}

function noteFor(state: CompactionState): string {
  if (state.summary !== undefined) {
    return `[Summary of the earlier part of this conversation (${state.turns} turn${state.turns === 1 ? "" : "s"}, removed to fit the model's context window):\n${state.summary}]`;
  }
  return `[The earlier part of this conversation (${state.turns} turn${state.turns === 1 ? "" : "s"}) was removed to fit the model's context window.]`;
}

function resultTokens(result: ToolResultBlock): number {
  return estimateMessageTokens([{ role: "tool", content: [result] }]);
}

/** A tool message with its large results replaced by a note (call and result stay paired). */
function shortenedMessage(message: Message & { role: "tool" }): Message {
  const { passthrough: _p, ...rest } = message;
  return {
    ...rest,
    content: message.content.map((result): ToolResultBlock => {
      const tokens = resultTokens(result);
      if (tokens <= LARGE_RESULT) return result;
      const { structured: _structured, ...fields } = result;
      return { ...fields, content: [{ type: "text", text: `[This tool result (about ${tokens} tokens) was removed to fit the context window. Call the tool again if you still need it.]` }] };
    }),
  };
}

/** What one compaction decided: the cut prefix, and what else of the kept part goes. */
interface Plan {
  state: CompactionState | undefined;
  /** Indexes (in the whole conversation) of kept-part messages not sent. */
  dropped: Set<number>;
  /** Tool messages (by index) whose large results are replaced by a note, as sent. */
  shortened: Map<number, Message>;
}

/** The messages sent for a plan: pinned system messages, the note, the kept part. */
function render(messages: readonly Message[], plan: Plan): Message[] {
  const removed = plan.state?.removed ?? 0;
  const out: Message[] = [];
  for (let i = 0; i < removed; i++) if (messages[i]!.role === "system") out.push(messages[i]!);
  let noted = plan.state === undefined;
  for (let i = removed; i < messages.length; i++) {
    if (plan.dropped.has(i)) continue;
    let message = plan.shortened.get(i) ?? messages[i]!;
    if (!noted && message.role === "user") {
      // The note leads the first user message kept (a message of its own would make two user
      // turns in a row, which not every provider takes). Its passthrough form would lose it.
      const { passthrough: _p, ...rest } = message;
      message = { ...rest, content: [{ type: "text", text: noteFor(plan.state!) }, ...message.content] } satisfies UserMessage;
      noted = true;
    }
    out.push(message);
  }
  return out;
}

function toolTokensOf(request: ChatRequest): number {
  return request.tools && request.tools.length > 0 ? estimateToolTokens(request.tools) : 0;
}

/**
 * Compaction for one loop (one request): carries the cut from call to call, reports what it did.
 * `prepare` gives the request to send for a model call; `overflow` the one to retry with after a
 * context-length error (or undefined when nothing more can go).
 */
export class Compactor {
  private state: CompactionState | undefined;
  private loaded = false;
  private summarized = false;
  private last: CompactionReport | undefined;

  constructor(
    private readonly options: ContextOptions,
    private readonly signal?: AbortSignal,
  ) {}

  /** What the latest compaction did (for the request's report). */
  get report(): CompactionReport | undefined {
    return this.last;
  }

  private get enabled(): boolean {
    return this.options.strategy !== "off";
  }

  /**
   * The request for this model call: compacted when the estimate passes the threshold. At once
   * (no promise) when nothing is to be read or cut: most model calls.
   */
  prepare(request: ChatRequest): ChatRequest | Promise<ChatRequest> {
    if (!this.enabled) return request;
    const restoring = this.restore(request.messages);
    return restoring ? restoring.then(() => this.prepared(request)) : this.prepared(request);
  }

  private prepared(request: ChatRequest): ChatRequest | Promise<ChatRequest> {
    const messages = request.messages;
    const max = this.options.maxTokens;
    const state = this.applicable(messages);
    // No window to measure against and no earlier cut to carry: nothing to estimate (the tools'
    // schemas would be, on every model call).
    if (max === undefined && !state) return request;
    const fixed = toolTokensOf(request) + reservedOutput(request, this.options.maxTokens);
    const applied: Plan = { state, dropped: new Set(), shortened: new Map() };
    const sent = render(messages, applied);
    const estimate = sumTokens(sent) + fixed;
    if (max === undefined || estimate <= max * this.options.threshold) {
      if (applied.state) this.record("threshold", messages, sent, fixed, applied);
      return applied.state ? { ...request, messages: sent } : request;
    }
    return this.compactTo(request, Math.floor(max * this.options.threshold * TARGET_SHARE) - fixed, "threshold", fixed);
  }

  /**
   * After a context-length error for `sent`: the request compacted further, or undefined when
   * nothing more can go. When the provider said its window (and what it counted), the cut aims
   * under that window, measured in the estimate's tokens; else at a share of what was sent.
   */
  async overflow(request: ChatRequest, sent: ChatRequest, said: ContextOverflow = {}): Promise<ChatRequest | undefined> {
    if (!this.enabled) return undefined;
    await this.restore(request.messages);
    const fixed = toolTokensOf(request) + reservedOutput(request, this.options.maxTokens);
    const sentTokens = sumTokens(sent.messages);
    const max = this.options.maxTokens;
    const configured = max === undefined ? Infinity : max * this.options.threshold * TARGET_SHARE - fixed;
    let target = Math.min(sentTokens * OVERFLOW_SHARE, configured);
    if (said.window !== undefined) {
      // The provider's tokens in the estimate's: the ratio of the two counts of what was sent.
      const scale = said.tokens ? (sentTokens + fixed) / said.tokens : 1;
      target = Math.min(sentTokens * 0.9, said.window * scale * TARGET_SHARE - fixed);
    }
    const next = await this.compactTo(request, Math.floor(target), "context_length_error", fixed);
    return sumTokens(next.messages) < sentTokens ? next : undefined;
  }

  /** The state kept for this conversation (from an earlier request), once per loop; undefined when there is none to read. */
  private restore(messages: readonly Message[]): Promise<void> | undefined {
    if (this.loaded) return undefined;
    this.loaded = true;
    // A conversation of no more turns than are always kept was never cut: no store read for it.
    const memory = this.options.memory;
    if (!memory || turnStarts(messages).length <= this.options.keepRecentTurns) return undefined;
    const key = conversationKey(messages);
    return key ? this.read(memory, key, messages) : undefined;
  }

  private async read(memory: CompactionMemory, key: string, messages: readonly Message[]): Promise<void> {
    try {
      const state = await memory.get(key);
      if (state && state.removed <= messages.length && digestOf(messages, state.removed) === state.digest) this.state = state;
    } catch {
      // The store is down: compaction starts from scratch.
    }
  }

  /** The carried state if it still fits the conversation's start. */
  private applicable(messages: readonly Message[]): CompactionState | undefined {
    const state = this.state;
    if (!state || state.removed > messages.length) return undefined;
    return state;
  }

  private async compactTo(request: ChatRequest, target: number, reason: CompactionReport["reason"], fixed: number): Promise<ChatRequest> {
    const messages = request.messages;
    const plan = planCut(messages, Math.max(0, target), this.options.keepRecentTurns, this.applicable(messages));
    const previous = this.applicable(messages);
    if (plan.state && plan.state.removed > (previous?.removed ?? 0)) {
      plan.state = await this.describe(messages, previous, plan.state);
      this.state = plan.state;
      await this.save(messages, plan.state);
    }
    const sent = render(messages, plan);
    this.record(reason, messages, sent, fixed, plan);
    return { ...request, messages: sent };
  }

  /** The summary of a new cut (summarize), built on the previous one; a trim note when there is no summarizer or it fails. */
  private async describe(messages: readonly Message[], previous: CompactionState | undefined, cut: CompactionState): Promise<CompactionState> {
    const summarizer = this.options.summarizer;
    if (this.options.strategy !== "summarize" || !summarizer) return cut;
    const from = previous?.removed ?? 0;
    const removed = messages.slice(from, cut.removed).filter((m) => m.role !== "system");
    try {
      const summary = await summarize(summarizer, previous?.summary, removed, this.signal);
      this.summarized = true;
      return { ...cut, summary };
    } catch (error) {
      if (this.signal?.aborted) throw error;
      // No summary is better than no answer: this cut is a trim.
      return previous?.summary !== undefined ? { ...cut, summary: previous.summary } : cut;
    }
  }

  private async save(messages: readonly Message[], state: CompactionState): Promise<void> {
    const key = conversationKey(messages);
    if (!key || !this.options.memory) return;
    try {
      await this.options.memory.set(key, state);
    } catch {
      // Not kept: the next request compacts again.
    }
  }

  private record(reason: CompactionReport["reason"], messages: readonly Message[], sent: readonly Message[], fixed: number, plan: Plan): void {
    const removedMessages = (plan.state?.removed ?? 0) - messages.slice(0, plan.state?.removed ?? 0).filter((m) => m.role === "system").length;
    this.last = {
      reason: reason === "context_length_error" || this.last?.reason === "context_length_error" ? "context_length_error" : "threshold",
      strategy: plan.state?.summary !== undefined ? "summarize" : "trim",
      turnsRemoved: plan.state?.turns ?? 0,
      messagesRemoved: removedMessages + plan.dropped.size,
      resultsShortened: [...plan.shortened.keys()].reduce((n, i) => n + (messages[i]!.role === "tool" ? messages[i]!.content.filter((r) => resultTokens(r) > LARGE_RESULT).length : 0), 0),
      tokensBefore: sumTokens(messages) + fixed,
      tokensAfter: sumTokens(sent) + fixed,
      summarized: this.summarized,
    };
  }
}

/** The output a request reserves in the window (its max_tokens), at most half the budget. */
function reservedOutput(request: ChatRequest, maxTokens: number | undefined): number {
  if (request.maxTokens === undefined || maxTokens === undefined) return 0;
  return Math.min(request.maxTokens, Math.floor(maxTokens / 2));
}

/**
 * Where to cut so that what is sent fits `target` tokens: whole turns first (never before
 * `previous`'s cut, never the newest `keepRecent`), then large results of kept turns, then
 * steps of kept turns — as described at the top of this file.
 */
export function planCut(messages: readonly Message[], target: number, keepRecent: number, previous?: CompactionState): Plan {
  const starts = turnStarts(messages);
  const plan: Plan = { state: previous, dropped: new Set(), shortened: new Map() };
  const size = () => sumTokens(render(messages, plan));
  // 1. Whole turns, oldest first: cutting turns 0..k (and what came before the first) cuts up to turn k+1's start.
  let cut = previous?.removed ?? 0;
  let turns = previous?.turns ?? 0;
  for (let k = 0; k < starts.length - keepRecent; k++) {
    const next = starts[k + 1]!;
    if (next <= cut) continue;
    if (size() <= target) break;
    cut = next;
    turns = k + 1;
    // The digest is taken once the cut is settled (below).
    plan.state = { removed: cut, digest: "", turns };
  }
  if (plan.state && plan.state !== previous) plan.state.digest = digestOf(messages, plan.state.removed);
  if (size() <= target) return plan;
  // 2. Large results of the kept turns (never the newest step's), oldest first.
  const removed = plan.state?.removed ?? 0;
  const kept = steps(messages, removed, messages.length);
  const lastStep = kept.at(-1);
  for (const [from, to] of kept) {
    if (size() <= target) return plan;
    if (lastStep && from === lastStep[0]) break;
    for (let i = from; i < to; i++) {
      const message = messages[i]!;
      if (message.role === "tool" && message.content.some((r) => resultTokens(r) > LARGE_RESULT)) plan.shortened.set(i, shortenedMessage(message));
    }
  }
  if (size() <= target) return plan;
  // 3. Whole steps of the kept turns, oldest first: never the last user message or the newest step.
  const lastUser = starts.at(-1) ?? -1;
  for (const [from, to] of kept) {
    if (size() <= target) break;
    if (lastStep && from === lastStep[0]) break;
    if (from === lastUser) continue;
    const lone = messages[from]!;
    // A user message goes only with the whole turn (above): its turn's steps may go.
    if (lone.role === "user") continue;
    for (let i = from; i < to; i++) plan.dropped.add(i);
  }
  return plan;
}

/* ------------------------------------------------------------------ summaries */

const SUMMARY_SYSTEM =
  "You condense the earlier part of a conversation between a user and an AI assistant that uses tools, so that the assistant can go on without it. " +
  "Write a concise summary in the conversation's own language: what the user wants, decisions made, facts learned from tool results (names, paths, ids, numbers, errors), " +
  "and what is still open. Do not address the user; write only the summary.";

const RESULT_CHARS = 2_000;
const ARGUMENT_CHARS = 500;
const TRANSCRIPT_CHARS = 120_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** The messages as plain text for the summarizer (long tool results and arguments clipped). */
export function transcript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          lines.push(`${message.role === "user" ? "User" : message.role === "assistant" ? "Assistant" : "System"}: ${block.text}`);
          break;
        case "image":
          lines.push(`${message.role === "user" ? "User" : "Assistant"}: [an image]`);
          break;
        case "tool_call":
          lines.push(`Assistant called the tool ${block.name} with ${clip(block.rawArguments, ARGUMENT_CHARS)}`);
          break;
        case "tool_result": {
          const text = block.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
          lines.push(`Result of ${block.name ?? "the tool"}${block.isError ? " (an error)" : ""}: ${clip(text, RESULT_CHARS)}`);
          break;
        }
        default:
          break;
      }
    }
  }
  const text = lines.join("\n");
  // The newest part matters most for going on.
  return text.length <= TRANSCRIPT_CHARS ? text : `[…]\n${text.slice(text.length - TRANSCRIPT_CHARS)}`;
}

async function summarize(summarizer: NonNullable<ContextOptions["summarizer"]>, previous: string | undefined, removed: readonly Message[], signal: AbortSignal | undefined): Promise<string> {
  const parts = [
    ...(previous ? [`Summary of what came before:\n${previous}`] : []),
    `The conversation to summarize${previous ? " (it follows that summary)" : ""}:\n${transcript(removed)}`,
  ];
  const result = await summarizer.model.complete(
    {
      model: summarizer.modelId,
      messages: [
        { role: "system", content: [{ type: "text", text: SUMMARY_SYSTEM }] },
        { role: "user", content: [{ type: "text", text: parts.join("\n\n") }] },
      ],
      maxTokens: 1_024,
    },
    signal,
  );
  const text = result.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("").trim();
  if (text === "") throw new Error("the summarizer returned no text");
  return text;
}
