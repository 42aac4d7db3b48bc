/**
 * The quirk steps of one response, in the order they must run: reasoning out of its odd places
 * first, then tool calls out of the text, then the calls' arguments and signatures. (Renamed
 * function names are mapped back on the neutral result: neutral-names.ts.)
 * The same steps serve a non-streamed message (one final delta) and a stream (every delta).
 */
import type { ChatResult, GatewayError, StreamEvent } from "../../../core/index.ts";
import { isJsonObject } from "../../../core/json-object.ts";
import type { WireChunk, WireMessageFields } from "../../openai-chat/wire-types.ts";
import { firstChoice } from "../../openai-chat/wire-types.ts";
import type { WireRequestTool } from "../request/wire.ts";
import type { StringArgument } from "./hermes-tool-calls.ts";
import type { QuirkSwitches } from "../types.ts";
import { ProviderNotes } from "./provider-notes.ts";
import { ObjectArgumentsStep } from "./steps/object-arguments-step.ts";
import { ReasoningDetailsStep } from "./steps/reasoning-details-step.ts";
import { TextToolCallsStep } from "./steps/text-tool-calls-step.ts";
import { ThinkTagsStep } from "./steps/think-tags-step.ts";
import { ThoughtSignaturesStep } from "./steps/thought-signatures-step.ts";
import { retryableToolUseFailed } from "./tool-use-failed.ts";
import type { DeltaStep, LooseDelta } from "./wire.ts";

export interface ResponseQuirksOptions {
  provider: string;
  quirks: QuirkSwitches;
  /** The tools the request offered, as sent (printed calls count only when there are some). */
  tools: readonly WireRequestTool[];
}

/** Whether the offered tool declares this argument a string (read by GLM's text tool calls). */
function stringArguments(tools: readonly WireRequestTool[]): StringArgument {
  const byName = new Map(tools.map((tool) => [tool.function.name, tool.function.parameters]));
  return (tool, argument) => {
    const properties = (byName.get(tool) as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
    return properties?.[argument]?.type === "string";
  };
}

function buildSteps(options: ResponseQuirksOptions, notes: ProviderNotes): DeltaStep[] {
  const { quirks } = options;
  const steps: DeltaStep[] = [];
  if (quirks.reasoningDetails) steps.push(new ReasoningDetailsStep(notes));
  if (quirks.thinkTags) steps.push(new ThinkTagsStep(notes));
  if (quirks.textToolCalls === "hermes" && options.tools.length > 0) {
    const names = new Set(options.tools.map((tool) => tool.function.name));
    steps.push(new TextToolCallsStep({ stringArgument: stringArguments(options.tools), offered: (name) => names.has(name) }));
  }
  if (quirks.objectArguments) steps.push(new ObjectArgumentsStep());
  if (quirks.thoughtSignatures) steps.push(new ThoughtSignaturesStep(notes));
  return steps;
}

/** Stateful, one per model call: streamed deltas depend on the ones before. */
export class ResponseQuirks {
  private readonly notes: ProviderNotes;
  private readonly steps: DeltaStep[];
  private finished = false;

  constructor(private readonly options: ResponseQuirksOptions) {
    this.notes = new ProviderNotes(options.provider);
    this.steps = buildSteps(options, this.notes);
  }

  /** A non-streamed body before the base reads it; anything that is not a completion passes as is. */
  completion(body: unknown): unknown {
    if (this.steps.length === 0 || !isJsonObject(body) || !Array.isArray(body["choices"])) return body;
    const choices: unknown[] = body["choices"];
    const at = choices.findIndex((choice) => isJsonObject(choice) && (choice["index"] ?? 0) === 0);
    const choice = choices[at];
    if (!isJsonObject(choice) || !isJsonObject(choice["message"])) return body;
    // The provider's message, unchecked like every response body: the steps read it defensively.
    const finish = typeof choice["finish_reason"] === "string" ? choice["finish_reason"] : undefined;
    const message = this.run(choice["message"] as LooseDelta, true, finish);
    return { ...body, choices: choices.map((c, i) => (i === at ? { ...choice, message } : c)) };
  }

  /** One stream chunk before the base reads it. */
  chunk(chunk: WireChunk): WireChunk {
    // `data: null` and the like pass through for the base to reject.
    if (this.steps.length === 0 || this.finished || typeof chunk !== "object" || chunk === null) return chunk;
    const choice = firstChoice(chunk.choices);
    if (!choice) return chunk;
    const final = Boolean(choice.finish_reason);
    this.finished = final;
    const delta = this.run(choice.delta ?? {}, final, typeof choice.finish_reason === "string" ? choice.finish_reason : undefined);
    return { ...chunk, choices: (chunk.choices ?? []).map((c) => (c === choice ? { ...c, delta } : c)) };
  }

  result(result: ChatResult): ChatResult {
    return this.notes.result(result);
  }

  event(event: StreamEvent): StreamEvent {
    return this.notes.empty ? event : this.notes.event(event);
  }

  error(error: GatewayError): GatewayError {
    return this.options.quirks.retryToolUseFailed ? retryableToolUseFailed(error) : error;
  }

  /**
   * After the steps the delta is in the shape the base translation reads. (With
   * objectArguments off, object arguments reach it unchanged, as they would without quirks.)
   */
  private run(delta: LooseDelta, final: boolean, finishReason?: string): WireMessageFields {
    return this.steps.reduce((current, step) => step.apply(current, final, finishReason), delta) as WireMessageFields;
  }
}
