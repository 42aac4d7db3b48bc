/**
 * What value each switch takes, for validating overrides from the config. Typed as a record over
 * every switch name, so adding a switch without saying how to check it does not compile.
 */
import { didYouMean } from "../../core/did-you-mean.ts";
import { OPENAI_ONLY_FIELDS } from "./presets.ts";
import type { QuirkSwitchName } from "./types.ts";

export type SwitchSpec =
  | { kind: "boolean" }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "patterns" }
  | { kind: "fields" };

const flag: SwitchSpec = { kind: "boolean" };
const oneOf = (...values: string[]): SwitchSpec => ({ kind: "enum", values });

export const SWITCH_SPECS: Record<QuirkSwitchName, SwitchSpec> = {
  stripToolFieldsWithoutTools: flag,
  toolChoice: oneOf("send", "omit-auto"),
  maxTokensField: oneOf("as-sent", "max_tokens", "max_completion_tokens"),
  reasoningRequest: oneOf("reasoning_effort", "thinking"),
  openaiOnlyFields: { kind: "fields" },
  messageNames: flag,
  imageDetail: flag,
  assistantContentString: flag,
  ensureUserMessage: flag,
  toolTypeFunction: flag,
  flattenContent: flag,
  toolCallIds: oneOf("as-is", "alnum9"),
  bridgeUserAfterTool: flag,
  prefixTrailingAssistant: flag,
  functionNames: oneOf("as-is", "openai", "gemini"),
  toolSchemas: oneOf("as-is", "gemini"),
  thoughtSignatures: flag,
  replayReasoning: oneOf("off", "tool-turns", "all"),
  reasoningField: oneOf("reasoning_content", "reasoning"),
  replayReasoningExceptModels: { kind: "patterns" },
  thinkTags: flag,
  reasoningDetails: flag,
  objectArguments: flag,
  textToolCalls: oneOf("off", "hermes"),
  retryToolUseFailed: flag,
};

export const SWITCH_NAMES = Object.keys(SWITCH_SPECS) as QuirkSwitchName[];

export function isSwitchName(name: string): name is QuirkSwitchName {
  return Object.hasOwn(SWITCH_SPECS, name);
}

/** Why `value` does not fit the switch, or undefined when it does. */
export function checkSwitchValue(spec: SwitchSpec, value: unknown): string | undefined {
  switch (spec.kind) {
    case "boolean":
      return typeof value === "boolean" ? undefined : "expected true or false";
    case "enum":
      return typeof value === "string" && spec.values.includes(value)
        ? undefined
        : `expected one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "patterns":
      return Array.isArray(value) && value.every((item) => typeof item === "string")
        ? undefined
        : "expected an array of model ids (\"*\" as wildcard)";
    case "fields":
      return fieldsProblem(value);
  }
}

/** A list of OpenAI-only field names, or "*": a misspelled name would drop its field silently. */
function fieldsProblem(value: unknown): string | undefined {
  const expected = `expected an array of request field names ("*" for all, or of ${OPENAI_ONLY_FIELDS.join(", ")})`;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) return expected;
  const known: readonly string[] = ["*", ...OPENAI_ONLY_FIELDS];
  const unknown = value.find((item) => !known.includes(item));
  if (unknown === undefined) return undefined;
  const close = didYouMean(unknown, known);
  return `unknown field "${unknown}"${close === undefined ? "" : ` (did you mean "${close}"?)`}; ${expected}`;
}
