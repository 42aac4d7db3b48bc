/**
 * Mixed turns: when the model called client tools and MCP tools together, the client only sees
 * its own calls. The full steps (assistant turns with every call and their reasoning, and the
 * MCP results) are kept under each returned client tool-call id, and spliced back in place of
 * the client's copy when it sends its tool results — so the provider always gets a complete,
 * valid history.
 */
import type { AssistantMessage, Message } from "../../core/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { StateStore } from "./store.ts";

export interface HiddenSteps {
  messages: Message[];
}

function callIds(message: AssistantMessage): string[] {
  return message.content.flatMap((block) => (block.type === "tool_call" ? [block.id] : []));
}

export class HiddenStepsKeeper {
  constructor(
    private readonly store: StateStore<HiddenSteps>,
    private readonly logger: Logger,
  ) {}

  /**
   * Remembers the loop's messages under every client tool-call id it returned. Keys are scoped
   * by tenant (a digest of the caller's API key), so one caller can never splice another's
   * steps into its conversation by presenting a known or reused tool-call id.
   */
  async save(tenant: string, clientCallIds: readonly string[], messages: Message[]): Promise<void> {
    const entry = { messages };
    await Promise.all(clientCallIds.map((id) => this.store.set(`${tenant}:${id}`, entry)));
  }

  /** The history with every assistant message the gateway answered replaced by its full steps. */
  async restore(tenant: string, history: readonly Message[]): Promise<Message[]> {
    const out: Message[] = [];
    for (const message of history) {
      const ids = message.role === "assistant" ? callIds(message) : [];
      if (ids.length === 0) {
        out.push(message);
        continue;
      }
      const entry = await this.find(ids.map((id) => `${tenant}:${id}`));
      if (entry) out.push(...entry.messages);
      else {
        this.logger.warn({ toolCallIds: ids }, "no stored steps for these tool calls (expired, or not from this gateway); using the history as sent");
        out.push(message);
      }
    }
    return out;
  }

  private async find(keys: string[]): Promise<HiddenSteps | undefined> {
    const entries = await Promise.all(keys.map((key) => this.store.get(key)));
    return entries.find((entry) => entry !== undefined);
  }
}
