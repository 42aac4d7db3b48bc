/**
 * The `quirks` value of a provider's config as switches: a preset name, or an object of
 * switches overriding a preset (`{ "preset": "zhipu", "ensureUserMessage": false }`; without
 * `preset`, the overrides apply on `openai`). Mistakes throw, naming the bad key and the closest
 * valid one, so `mcp-gateway check` can report them before any request is sent.
 */
import { didYouMean } from "../../core/did-you-mean.ts";
import { PRESET_NAMES, PRESETS, isPresetName } from "./presets.ts";
import { checkSwitchValue, isSwitchName, SWITCH_NAMES, SWITCH_SPECS } from "./switch-specs.ts";
import type { QuirkSwitches, QuirkSwitchName, ResolvedQuirks } from "./types.ts";

const DEFAULT_PRESET = "openai";
const PRESET_KEY = "preset";

function suggestion(input: string, candidates: readonly string[]): string {
  const close = didYouMean(input, candidates);
  return close === undefined ? "" : ` (did you mean "${close}"?)`;
}

function presetSwitches(name: string): QuirkSwitches {
  if (!isPresetName(name)) {
    throw new Error(`unknown quirks preset "${name}"${suggestion(name, PRESET_NAMES)}; known presets: ${PRESET_NAMES.join(", ")}`);
  }
  // A fresh copy: callers may keep and change their switches without touching the preset.
  const preset: QuirkSwitches = PRESETS[name];
  return { ...preset, replayReasoningExceptModels: [...preset.replayReasoningExceptModels], openaiOnlyFields: [...preset.openaiOnlyFields] };
}

function applyOverride(switches: QuirkSwitches, key: string, value: unknown): QuirkSwitchName {
  if (!isSwitchName(key)) {
    throw new Error(`unknown quirks switch "${key}"${suggestion(key, [...SWITCH_NAMES, PRESET_KEY])}`);
  }
  const problem = checkSwitchValue(SWITCH_SPECS[key], value);
  if (problem !== undefined) throw new Error(`quirks switch "${key}": ${problem}, got ${JSON.stringify(value)}`);
  // Checked against the switch's spec just above.
  Object.assign(switches, { [key]: value });
  return key;
}

function fromObject(value: Record<string, unknown>): ResolvedQuirks {
  const presetValue = value[PRESET_KEY] ?? DEFAULT_PRESET;
  if (typeof presetValue !== "string") throw new Error(`quirks "${PRESET_KEY}": expected a preset name, got ${JSON.stringify(presetValue)}`);
  const switches = presetSwitches(presetValue);
  const overrides = Object.entries(value)
    .filter(([key]) => key !== PRESET_KEY)
    .map(([key, setting]) => applyOverride(switches, key, setting));
  return { preset: presetValue, switches, overrides };
}

/** The switches for a provider's `quirks` config value (`openai` when absent). */
export function resolveQuirks(value: string | Record<string, unknown> | undefined): ResolvedQuirks {
  if (value === undefined) return { preset: DEFAULT_PRESET, switches: presetSwitches(DEFAULT_PRESET), overrides: [] };
  if (typeof value === "string") return { preset: value, switches: presetSwitches(value), overrides: [] };
  return fromObject(value);
}

function formatValue(value: QuirkSwitches[QuirkSwitchName]): string {
  return Array.isArray(value) ? `[${value.join(", ")}]` : String(value);
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * One line for `mcp-gateway check`: the preset, the overrides, and every switch that differs
 * from plain OpenAI, e.g. `zhipu: assistantContentString, ensureUserMessage, …`.
 */
export function describeQuirks(resolved: ResolvedQuirks): string {
  const base = PRESETS.openai as QuirkSwitches;
  const active = SWITCH_NAMES.filter((name) => !sameValue(resolved.switches[name], base[name])).map((name) => {
    const value = resolved.switches[name];
    return value === true ? name : `${name}=${formatValue(value)}`;
  });
  const overrides = resolved.overrides.map((name) => `${name}=${formatValue(resolved.switches[name])}`);
  const head = overrides.length === 0 ? resolved.preset : `${resolved.preset} (overrides: ${overrides.join(", ")})`;
  return `${head}: ${active.length === 0 ? "OpenAI defaults" : active.join(", ")}`;
}
