/**
 * Steering a running loop: messages a user queues while it runs. A steering message is delivered
 * between two tool calls of the turn — the calls not yet run are skipped with an error result
 * that says why — and the model sees it right after the results; a follow-up is delivered only
 * when the loop would otherwise stop. The turn's calls run one after another here (not in
 * parallel): "between two calls" must mean something.
 */
import type { Message, ToolCallBlock, ToolResultBlock } from "../core/index.ts";
import { runTools } from "./run-tools.ts";
import type { LoopEvent, LoopOptions, SteeringQueue, ToolExecution } from "./types.ts";

export const SKIPPED_FOR_STEERING =
  "Error: this call was not run: the user sent a new message before it started (it follows these results). Read it first; call the tool again only if it still makes sense.";

export interface TurnTools {
  executions: ToolExecution[];
  /** Steering messages to add after the results. */
  steered: Message[];
}

function skipped(call: ToolCallBlock): ToolResultBlock {
  return { type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: SKIPPED_FOR_STEERING }], isError: true };
}

/** The turn's tool calls: in parallel without a steering queue, else one by one with the queue read between them. */
export async function* runTurnTools(options: LoopOptions, turn: number, calls: ToolCallBlock[]): AsyncGenerator<LoopEvent[], TurnTools> {
  const queue = options.steering;
  if (!queue) return { executions: yield* runTools(options, turn, calls), steered: [] };
  const executions: ToolExecution[] = [];
  let steered: Message[] = [];
  for (const call of calls) {
    if (steered.length > 0) {
      const result = skipped(call);
      yield [
        { type: "tool_start", turn, call },
        { type: "tool_end", turn, call, result, durationMs: 0, isError: true },
      ];
      executions.push({ call, result, durationMs: 0 });
      continue;
    }
    executions.push(...(yield* runTools(options, turn, [call])));
    steered = await queue.steering();
  }
  return { executions, steered };
}

/** Adds queued messages to the conversation; returns their `user_message` events, one each. */
export function deliver(messages: Message[], kind: "steer" | "follow_up", turn: number, append: (message: Message) => void): LoopEvent[] {
  return messages.map((message) => {
    append(message);
    return { type: "user_message", turn, kind, message };
  });
}

/** What the loop gets instead of stopping: a steering message that came late, or the follow-ups. */
export async function pendingAtStop(queue: SteeringQueue | undefined): Promise<{ kind: "steer" | "follow_up"; messages: Message[] } | undefined> {
  if (!queue) return undefined;
  const late = await queue.steering();
  if (late.length > 0) return { kind: "steer", messages: late };
  const follow = await queue.followUp();
  return follow.length > 0 ? { kind: "follow_up", messages: follow } : undefined;
}
