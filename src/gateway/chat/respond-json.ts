/** Non-streaming: run the loop to its end and answer one `chat.completion`. */
import type { LoopOutcome } from "../../loop/index.ts";
import { toChatCompletion, type ChatCompletion } from "../openai/to-completion.ts";
import type { ChatDeps } from "./context.ts";
import type { PreparedChat } from "./prepare.ts";
import { newResponseMeta, rememberHiddenSteps, startLoop } from "./run.ts";

export async function completeChat(
  prepared: PreparedChat,
  deps: ChatDeps,
  signal: AbortSignal,
): Promise<{ completion: ChatCompletion; outcome: LoopOutcome }> {
  const loop = startLoop(prepared, deps, false, signal);
  let step = await loop.next();
  while (!step.done) step = await loop.next();
  const outcome = step.value;
  await rememberHiddenSteps(outcome, deps, prepared.tenant);
  const meta = newResponseMeta();
  return { completion: toChatCompletion(outcome, meta.id, prepared.model.requested, meta.created), outcome };
}
