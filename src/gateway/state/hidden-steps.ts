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
 * A result the spliced steps already hold and the client also sent (Responses clients echo the
 * `mcp_call` items they were shown): kept once, where the steps put it.
 */
function withoutRepeatedResults(messages: Message[]): Message[] {
  const seen = new Set<string>();
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role !== "tool") {
      out.push(message);
      continue;
    }
    const content = message.content.filter((block) => !seen.has(block.callId));
    for (const block of content) seen.add(block.callId);
    if (content.length === message.content.length) out.push(message);
    else if (content.length > 0) out.push({ ...message, content });
  }
  return out;
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
  async save(tenant: string, keys: readonly string[], messages: Message[]): Promise<void> {
    const entry = { messages };
    try {
      await Promise.all(keys.map((key) => this.store.set(`${tenant}:${key}`, entry)));
    } catch (error) {
      // The answer still goes out; its follow-up will carry only what the client sends.
      this.logger.warn({ err: (error as Error).message, keys: keys.length }, "could not keep the hidden steps (state store unavailable); the follow-up will use the history as sent");
    }
  }

  /** The history with every assistant message the gateway answered replaced by its full steps. */
  async restore(tenant: string, history: readonly Message[]): Promise<Message[]> {
    const out: Message[] = [];
    for (const message of history) {
      const keys = message.role === "assistant" ? stepKeys(message, { calls: true, signatures: true }) : [];
      const entry = keys.length === 0 ? undefined : await this.find(keys.map((key) => `${tenant}:${key}`));
      if (entry) out.push(...spliced(entry.messages, message));
      else {
        const calls = message.role === "assistant" ? stepKeys(message, { calls: true, signatures: false }) : [];
        if (calls.length > 0) this.logger.warn({ toolCallIds: calls }, "no stored steps for these tool calls (expired, or not from this gateway); using the history as sent");
        out.push(message);
      }
    }
    return withoutRepeatedResults(out);
  }

  /** The stored steps; none when the store cannot answer (the request goes on with the history as sent). */
  private async find(keys: string[]): Promise<HiddenSteps | undefined> {
    try {
      const entries = await Promise.all(keys.map((key) => this.store.get(key)));
      return entries.find((entry) => entry !== undefined);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, "could not read the hidden steps (state store unavailable); using the history as sent");
      return undefined;
    }
  }
}
