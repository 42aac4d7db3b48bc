/**
 * The one place quirks touch a request: the wire body the base translation built, turned into
 * the body this provider accepts. Replay steps run first (they pair wire and neutral assistant
 * messages by position, before any step adds a message), renames before id maps, and the
 * tool-field cleanup last (it looks at the final tools).
 */
import type { ChatRequest } from "../../../core/index.ts";
import type { QuirkSwitches } from "../types.ts";
import { bridgeUserAfterTool, prefixTrailingAssistant } from "./bridge.ts";
import { assistantContentString, flattenContent } from "./content-shape.ts";
import type { RequestContext, RequestStep } from "./context.ts";
import { dropImageDetail } from "./image-detail.ts";
import { dropMessageNames } from "./message-names.ts";
import { modelMatcher } from "./model-patterns.ts";
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
}

/** The steps the switches ask for, in order. */
function stepsFor(quirks: QuirkSwitches): RequestStep[] {
  const excepted = modelMatcher(quirks.replayReasoningExceptModels);
  const steps: [boolean, RequestStep][] = [
    [quirks.thoughtSignatures, replayThoughtSignatures],
    [quirks.thinkTags, replayThinkContent],
    [quirks.reasoningDetails, replayReasoningDetails],
    [quirks.replayReasoning !== "off", replayReasoning(excepted)],
    [quirks.replayReasoningExceptModels.length > 0, stripReasoningForModels(excepted)],
    [quirks.toolSchemas === "gemini", geminiToolSchemas],
    [quirks.toolTypeFunction, typeEveryTool],
    [quirks.flattenContent, flattenContent],
    [quirks.assistantContentString, assistantContentString],
    [quirks.ensureUserMessage, ensureUserMessage],
    [quirks.bridgeUserAfterTool, bridgeUserAfterTool],
    [quirks.prefixTrailingAssistant, prefixTrailingAssistant],
    [quirks.toolCallIds === "alnum9", alnum9ToolCallIds],
    [quirks.toolChoice === "omit-auto", omitAutoToolChoice],
    [quirks.stripToolFieldsWithoutTools, stripToolFieldsWithoutTools],
    [!quirks.messageNames, dropMessageNames],
    [!quirks.imageDetail, dropImageDetail],
  ];
  return steps.filter(([on]) => on).map(([, step]) => step);
}

/**
 * The request side of one provider's quirks, built once per adapter: the switches are fixed for
 * the adapter's life, so the step list (and the model patterns in it) is worked out up front and
 * every request only runs it. Switches changed after construction are not seen.
 */
export class RequestQuirks {
  private readonly quirks: Readonly<QuirkSwitches>;
  private readonly steps: readonly RequestStep[];

  constructor(
    private readonly provider: string,
    quirks: QuirkSwitches,
  ) {
    this.quirks = { ...quirks };
    this.steps = stepsFor(this.quirks);
  }

  apply(body: WireRequest, request: ChatRequest): QuirkedRequest {
    const context: RequestContext = { request, provider: this.provider, quirks: this.quirks };
    return { body: this.steps.reduce((current, step) => step(current, context), body) };
  }
}

/** One-off form (tests, tools): builds the steps for this call only. Adapters keep a RequestQuirks. */
export function applyRequestQuirks(body: WireRequest, context: RequestContext): QuirkedRequest {
  return new RequestQuirks(context.provider, context.quirks).apply(body, context.request);
}
