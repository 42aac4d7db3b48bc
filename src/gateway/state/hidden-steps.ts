/**
 * The steps a client never sees. When the model called client tools and MCP tools together, the
 * client only sees its own calls; when MCP tools ran before an answer, the client sees only the
 * answer. The full steps (assistant turns with every call and their reasoning, and the MCP
 * results) are kept under keys the client's copy of the answer carries back — its tool-call ids,
 * and the signatures of its thinking blocks — and spliced back in place of that copy when it
 * returns, so the provider always gets the complete, valid history it produced (Anthropic checks
 * a thinking block against the conversation it was made in).
 */
import { createHash } from "node:crypto";
import type { AssistantMessage, Message } from "../../core/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { StateStore } from "./store.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

export interface HiddenSteps {
  messages: Message[];
}

/** The key of a thinking block's signature: a digest, since signatures run to kilobytes. */
function signatureKey(signature: string): string {
  return `sig:${createHash("sha256").update(signature).digest("base64url").slice(0, 32)}`;
}

/** The keys by which an assistant message the gateway answered can be recognised when it comes back. */
export function stepKeys(message: AssistantMessage, options: { calls: boolean; signatures: boolean }): string[] {
  const keys: string[] = [];
  for (const block of message.content) {
    if (block.type === "tool_call" && options.calls) keys.push(block.id);
    const signature = block.type === "reasoning" ? block.providerData?.data["signature"] : undefined;
    if (typeof signature === "string" && signature !== "" && options.signatures) keys.push(signatureKey(signature));
  }
  return keys;
}

/**
 * A result the spliced steps already hold and the client also sent right after its copy of the
 * answer (Responses clients echo the `mcp_call` items they were shown): kept once, where the steps
 * put it. Only the client's tool messages right after a splice are looked at: results elsewhere
 * are the client's own, even when a provider reuses a call id in another turn.
 */
function withoutEchoedResults(following: Message[], spliced: readonly Message[]): Message[] {
  const held = new Set(flatMapped(spliced, (message) => (message.role === "tool" ? message.content.map((block) => block.callId) : [])));
  if (held.size === 0) return following;
  return flatMapped(following, (message): Message[] => {
    if (message.role !== "tool") return [message];
    const content = message.content.filter((block) => !held.has(block.callId));
    if (content.length === message.content.length) return [message];
    return content.length > 0 ? [{ ...message, content }] : [];
  });
}

/**
 * The stored steps in place of the client's copy. When nothing was hidden (one assistant turn,
 * only client calls), the stored turn still carries the provider data a client may have dropped
 * (thought signatures), and the client's own copy, if it kept one, rides along for a provider of
 * its protocol (the Messages door's pass-through sends it unchanged).
 */
function spliced(steps: Message[], sent: Message): Message[] {
  const only = steps.length === 1 ? steps[0] : undefined;
  if (only?.role === "assistant" && sent.role === "assistant" && sent.passthrough) return [{ ...only, passthrough: sent.passthrough }];
  return steps;
}

export class HiddenStepsKeeper {
  constructor(
    private readonly store: StateStore<HiddenSteps>,
    private readonly logger: Logger,
  ) {}

  /**
   * Remembers the loop's messages under each key. Keys are scoped by tenant (a digest of the
   * caller's API key), so one caller can never splice another's steps into its conversation by
   * presenting a known or reused tool-call id.
   */
  async save(tenant: string, keys: readonly string[], messages: Message[], requestId?: string): Promise<void> {
    try {
      // One entry under every key: serialized once.
      const json = JSON.stringify({ messages } satisfies HiddenSteps);
      await Promise.all(keys.map((key) => this.store.setJson(`${tenant}:${key}`, json)));
    } catch (error) {
      // The answer still goes out; its follow-up will carry only what the client sends.
      this.logger.warn({ requestId, err: (error as Error).message, keys: keys.length }, "could not keep the hidden steps (state store unavailable); the follow-up will use the history as sent");
    }
  }

  /**
   * The history with every assistant message the gateway answered replaced by its full steps; at
   * once (no promise) when there is nothing to look up.
   */
  restore(tenant: string, history: readonly Message[], requestId?: string): Message[] | Promise<Message[]> {
    const keysOf = history.map((message) => (message.role === "assistant" ? stepKeys(message, { calls: true, signatures: true }) : []));
    // No answer of the gateway's in the history (a conversation's first request): nothing to look up.
    if (keysOf.every((keys) => keys.length === 0)) return [...history];
    return this.restored(tenant, history, keysOf, requestId);
  }

  private async restored(tenant: string, history: readonly Message[], keysOf: string[][], requestId: string | undefined): Promise<Message[]> {
    // One round of lookups for the whole history (a shared store answers them pipelined).
    const entries = await this.findAll(keysOf.map((keys) => keys.map((key) => `${tenant}:${key}`)), requestId);
    const out: Message[] = [];
    for (let i = 0; i < history.length; i++) {
      const message = history[i]!;
      const entry = entries[i];
      if (!entry) {
        const calls = message.role === "assistant" ? stepKeys(message, { calls: true, signatures: false }) : [];
        if (calls.length > 0) this.logger.warn({ requestId, toolCallIds: calls }, "no stored steps for these tool calls (expired, or not from this gateway); using the history as sent");
        out.push(message);
        continue;
      }
      const steps = spliced(entry.messages, message);
      out.push(...steps);
      // The client's tool messages that follow its copy of the answer.
      let next = i + 1;
      while (next < history.length && history[next]!.role === "tool") next++;
      out.push(...withoutEchoedResults(history.slice(i + 1, next), steps));
      i = next - 1;
    }
    return out;
  }

  /** The stored steps of each message (by its keys); none when the store cannot answer (the request goes on with the history as sent). */
  private async findAll(keysPerMessage: string[][], requestId: string | undefined): Promise<(HiddenSteps | undefined)[]> {
    if (keysPerMessage.every((keys) => keys.length === 0)) return keysPerMessage.map(() => undefined);
    try {
      return await Promise.all(keysPerMessage.map(async (keys) => (await Promise.all(keys.map((key) => this.store.get(key)))).find((entry) => entry !== undefined)));
    } catch (error) {
      this.logger.warn({ requestId, err: (error as Error).message }, "could not read the hidden steps (state store unavailable); using the history as sent");
      return keysPerMessage.map(() => undefined);
    }
  }
}
