/**
 * Agent conversations of the MCP `chat` tool: the whole neutral history of each, kept in the
 * state store (memory, or Redis shared by every instance) per tenant, so that a desktop client can
 * hold a multi-turn conversation through one tool, on any instance.
 */
import type { Message } from "../../core/index.ts";
import type { StateStore } from "./store.ts";

export interface StoredConversation {
  /** The model of its last run, as asked for. */
  model: string;
  messages: Message[];
}

/** A day: a conversation with a person pauses longer than a tool loop's follow-up. An entry up to 8 MB. */
export const CONVERSATIONS_TABLE = { ttlMs: 24 * 60 * 60 * 1000, maxEntryBytes: 8 * 1024 * 1024 };

export class ConversationStore {
  constructor(private readonly table: StateStore<StoredConversation>) {}

  get(tenant: string, id: string): Promise<StoredConversation | undefined> {
    return this.table.get(`${tenant}:${id}`);
  }

  set(tenant: string, id: string, conversation: StoredConversation): Promise<void> {
    return this.table.set(`${tenant}:${id}`, conversation);
  }
}
