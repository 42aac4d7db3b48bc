/**
 * The one place quirks touch a request: the wire body the base translation built, turned into
 * the body this provider accepts. Replay steps run first (they pair wire and neutral assistant
 * messages by position, before any step adds a message), renames before id maps, and the
 * tool-field cleanup last (it looks at the final tools).
 */
import { FunctionNameMap } from "../function-names.ts";
import type { QuirkSwitches } from "../types.ts";
import { bridgeUserAfterTool } from "./bridge.ts";
import { assistantContentString, flattenContent } from "./content-shape.ts";
import type { RequestContext, RequestStep } from "./context.ts";
import { functionNamesOf, renameFunctions } from "./function-names.ts";
import { replayReasoningDetails, replayThinkContent } from "./raw-replay.ts";
import { replayReasoning, stripReasoningForModels } from "./reasoning-replay.ts";
import { replayThoughtSignatures } from "./thought-signatures.ts";
import { alnum9ToolCallIds } from "./tool-call-ids.ts";
import { omitAutoToolChoice, stripToolFieldsWithoutTools, typeEveryTool } from "./tool-fields.ts";
import { geminiToolSchemas } from "./tool-schemas.ts";
import { ensureUserMessage } from "./user-turn.ts";
import type { WireRequest } from "./wire.ts";

export type { RequestContext } from "./context.ts";
export type { WireRequest } from "./wire.ts";

export interface QuirkedRequest {
  body: WireRequest;
  /** Set when function names were renamed: the response maps them back with it. */
  names?: FunctionNameMap;
}

/** The steps the switches ask for, in order. */
function stepsFor(quirks: QuirkSwitches): RequestStep[] {
  const steps: [boolean, RequestStep][] = [
    [quirks.thoughtSignatures, replayThoughtSignatures],
    [quirks.thinkTags, replayThinkContent],
    [quirks.reasoningDetails, replayReasoningDetails],
    [quirks.replayReasoning !== "off", replayReasoning],
    [quirks.replayReasoningExceptModels.length > 0, stripReasoningForModels],
    [quirks.toolSchemas === "gemini", geminiToolSchemas],
    [quirks.toolTypeFunction, typeEveryTool],
    [quirks.flattenContent, flattenContent],
    [quirks.assistantContentString, assistantContentString],
    [quirks.ensureUserMessage, ensureUserMessage],
    [quirks.bridgeUserAfterTool, bridgeUserAfterTool],
    [quirks.toolCallIds === "alnum9", alnum9ToolCallIds],
    [quirks.toolChoice === "omit-auto", omitAutoToolChoice],
    [quirks.stripToolFieldsWithoutTools, stripToolFieldsWithoutTools],
  ];
  return steps.filter(([on]) => on).map(([, step]) => step);
}

export function applyRequestQuirks(body: WireRequest, context: RequestContext): QuirkedRequest {
  const stepped = stepsFor(context.quirks).reduce((current, step) => step(current, context), body);
  if (context.quirks.functionNames !== "gemini") return { body: stepped };
  const names = new FunctionNameMap(functionNamesOf(stepped));
  return { body: renameFunctions(stepped, names), names };
}
