/**
 * The conversation of a `chat` call: its history taken from the store (a new one when the id is
 * unknown or not given), the run registered so that `steer` can reach it, and the history with
 * the run's messages kept afterwards. One run per conversation at a time.
 */
import { randomUUID } from "node:crypto";
import type { Message } from "../../core/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { LoopOutcome, SteeringQueue } from "../../loop/index.ts";
import type { ConversationStore } from "../state/conversations.ts";
import type { ConversationRuns } from "./conversation-runs.ts";
import { tenantOfKey } from "./steer-tool.ts";
import type { KeyPolicy } from "../shared/keys.ts";

export interface ConversationDeps {
  store: ConversationStore;
  runs: ConversationRuns;
}

export interface OpenConversation {
  id: string;
  /** The history, the system prompt (given, or kept) first, and the new prompt last. */
  messages: Message[];
  steering: SteeringQueue;
  /** Keeps the run's messages (after a finished run) and lets the conversation run again. */
  close(outcome: LoopOutcome | undefined, model: string): Promise<void>;
}

const textMessage = (role: "system" | "user", text: string): Message => ({ role, content: [{ type: "text", text }] });

/** The history with the prompt; a given system prompt replaces the conversation's, which is the alias's when it has none. */
function withPrompt(history: readonly Message[], prompt: string, system: { given?: string | undefined; fallback?: string | undefined }): Message[] {
  const rest = history.filter((m) => m.role !== "system");
  const kept = history.find((m) => m.role === "system");
  const text = system.given ?? (kept ? undefined : system.fallback);
  const systemMessage = text !== undefined ? textMessage("system", text) : kept;
  return [...(systemMessage ? [systemMessage] : []), ...rest, textMessage("user", prompt)];
}

/**
 * Opens the conversation `id` (a new id when undefined). A string is the refusal for the caller:
 * the conversation is running already, or its history cannot be read.
 */
export async function openConversation(
  deps: ConversationDeps,
  key: KeyPolicy | undefined,
  id: string | undefined,
  prompt: string,
  /** The call's system prompt, and the alias's (for a conversation that has none yet). */
  system: { given?: string | undefined; fallback?: string | undefined },
  logger: Logger,
): Promise<OpenConversation | string> {
  const tenant = tenantOfKey(key);
  const conversation = id ?? randomUUID();
  const steering = deps.runs.begin(tenant, conversation);
  if (!steering) return `Error: conversation "${conversation}" is answering a chat call already: send your message with steer (it reaches the running agent), or wait for its answer.`;
  let history: Message[] = [];
  try {
    history = id === undefined ? [] : ((await deps.store.get(tenant, conversation))?.messages ?? []);
  } catch (error) {
    deps.runs.end(tenant, conversation);
    return `Error: the history of conversation "${conversation}" cannot be read now: ${error instanceof Error ? error.message : String(error)}`;
  }
  const messages = withPrompt(history, prompt, system);
  return {
    id: conversation,
    messages,
    steering,
    async close(outcome, model) {
      deps.runs.end(tenant, conversation);
      if (!outcome) return;
      try {
        await deps.store.set(tenant, conversation, { model, messages: [...messages, ...outcome.newMessages] });
      } catch (error) {
        // The answer is still given; the next call of this conversation starts from the older history.
        logger.warn({ conversation, err: error instanceof Error ? error.message : String(error) }, "chat: the conversation could not be kept");
      }
    },
  };
}
