/**
 * Runs the gateway's tool calls of one turn in parallel. Nothing here throws for a tool's own
 * failure: denied, unknown, thrown or timed-out calls all become error results for the model.
 */
import type { ToolCallBlock, ToolProgress, ToolResultBlock } from "../core/index.ts";
import type { LoopEvent, LoopOptions, ToolExecution } from "./types.ts";

function errorResult(call: ToolCallBlock, message: string): ToolResultBlock {
  return { type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: message }], isError: true };
}

async function runOne(options: LoopOptions, turn: number, call: ToolCallBlock, onProgress: (p: ToolProgress) => void): Promise<ToolResultBlock> {
  if (call.argumentsError !== undefined) {
    return errorResult(
      call,
      `Error: the arguments of this call could not be parsed (${call.argumentsError}). You sent: ${call.rawArguments}\nSend the arguments again as one valid JSON object.`,
    );
  }
  const verdict = await options.hooks?.beforeToolCall?.({ turn, call });
  if (verdict && "deny" in verdict) return errorResult(call, `Error: this tool call was denied: ${verdict.deny}`);
  if (!options.tools.has(call.name)) {
    return errorResult(call, `Error: there is no tool named "${call.name}". Use one of the tools you were given.`);
  }
  try {
    return await options.tools.call(call, { ...(options.signal ? { signal: options.signal } : {}), onProgress });
  } catch (error) {
    return errorResult(call, `Error: the tool failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Yields tool_start/progress/end events as they happen (those that came together in one batch);
 * returns the executions in call order.
 */
export async function* runTools(options: LoopOptions, turn: number, calls: ToolCallBlock[]): AsyncGenerator<LoopEvent[], ToolExecution[]> {
  const queue: LoopEvent[] = [];
  let wake: (() => void) | undefined;
  const push = (event: LoopEvent) => {
    queue.push(event);
    wake?.();
  };
  let pending = calls.length;
  const executions = calls.map(async (call): Promise<ToolExecution> => {
    try {
      push({ type: "tool_start", turn, call });
      const started = performance.now();
      const result = await runOne(options, turn, call, (progress) => push({ type: "tool_progress", turn, call, progress }));
      const execution = { call, result, durationMs: Math.round(performance.now() - started) };
      await options.hooks?.afterToolCall?.({ turn, execution });
      push({ type: "tool_end", turn, call, result, durationMs: execution.durationMs, isError: result.isError });
      return execution;
    } finally {
      // Also when a hook throws: the event pump below must not wait forever.
      pending--;
      wake?.();
    }
  });
  // Surface a hook's failure through Promise.all below, not as an unhandled rejection.
  for (const execution of executions) execution.catch(() => undefined);
  while (pending > 0 || queue.length > 0) {
    if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    if (queue.length > 0) yield queue.splice(0);
  }
  return Promise.all(executions);
}
