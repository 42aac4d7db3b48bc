/**
 * The neutral conversation as Gemini `systemInstruction` + `contents`, shaped by Gemini's rules
 * (docs/provider-quirks.md §3):
 * - system messages, wherever they stand, become one `systemInstruction` (Gemma, which refuses
 *   it, gets the text at the start of the first user turn instead);
 * - assistant turns are `model` contents; their parts go back as they came: text and `thought`
 *   parts with their `thoughtSignature`, function calls with theirs (parallel calls: only the first
 *   had one), parts the neutral model has no words for verbatim — all only to the provider that
 *   produced them; other providers' reasoning is left out;
 * - tool results become one `user` content of `functionResponse` parts right after the call
 *   turn, one per call, in call order, named after their call: "Please ensure that function
 *   response turn comes immediately after a function call turn." / "…the number of function
 *   response parts is equal to the number of function call parts of the function call turn.";
 *   the pairing is repaired first (../tool-pairing.ts);
 * - the first content is a user turn: "Please ensure that function call turn comes immediately
 *   after a user turn or after a function response turn.";
 * - call ids go on the wire only when Gemini gave them (some endpoints refuse `id`: `Unknown name
 *   "id" at 'contents[1].parts[0].function_call'`); otherwise calls and responses pair by order;
 * - on the current turn (after the last user message with standard content) the first call of
 *   each step carries a signature on models that require one: its own, or the placeholder Gemini
 *   documents for history it did not make.
 */
import type { AssistantMessage, Message, ToolCallBlock, ToolResultBlock } from "../../core/index.ts";
import { pairToolResults, UNANSWERED_RESULT_TEXT } from "../tool-pairing.ts";
import type { GeminiModelTraits } from "./models.ts";
import { ownData, THOUGHT_SIGNATURE_KEY, WIRE_ID_KEY, WIRE_PART_KEY } from "./provider-data.ts";
import { functionResponse, userParts } from "./user-parts.ts";
import type { WireContent, WirePart } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

/** ai.google.dev/gemini-api/docs/thought-signatures: for function calls that never had a signature. */
export const FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";
/** Stands in for a user turn where Gemini requires one and the conversation has none. */
export const PLACEHOLDER_USER_TEXT = "Continue.";

export interface ConversationContext {
  /** The provider id: provider data goes back only to the provider that produced it. */
  origin: string;
  traits: GeminiModelTraits;
}

export interface WireConversation {
  systemInstruction?: { parts: { text: string }[] };
  contents: WireContent[];
}

/** A content while the conversation is built: user turns of function responses are kept apart from plain ones. */
interface Turn {
  kind: "user" | "model" | "responses";
  parts: WirePart[];
}

function signatureOf(data: { [key: string]: unknown } | undefined): { thoughtSignature?: string } {
  const signature = data?.[THOUGHT_SIGNATURE_KEY];
  return typeof signature === "string" && signature !== "" ? { thoughtSignature: signature } : {};
}

function callPart(block: ToolCallBlock, origin: string): WirePart {
  const data = ownData(block.providerData, origin);
  const id = data?.[WIRE_ID_KEY] === block.id ? { id: block.id } : {};
  return { functionCall: { ...id, name: block.name, args: block.arguments }, ...signatureOf(data) };
}

function modelParts(message: AssistantMessage, origin: string): WirePart[] {
  return flatMapped(message.content, (block): WirePart[] => {
    switch (block.type) {
      case "text": {
        const signature = signatureOf(ownData(block.providerData, origin));
        // Gemini refuses empty text; an empty part that carried a signature goes back as it came.
        return block.text === "" && signature.thoughtSignature === undefined ? [] : [{ text: block.text, ...signature }];
      }
      case "reasoning": {
        const data = ownData(block.providerData, origin);
        if (data === undefined || block.redacted) return [];
        return [{ text: block.text, thought: true, ...signatureOf(data) }];
      }
      case "tool_call":
        return [callPart(block, origin)];
      case "opaque": {
        const part = ownData(block.providerData, origin)?.[WIRE_PART_KEY];
        return part && typeof part === "object" ? [part as WirePart] : [];
      }
    }
  });
}

function unanswered(call: ToolCallBlock): ToolResultBlock {
  return { type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: UNANSWERED_RESULT_TEXT }], isError: true };
}

/** The results of one call turn as one content, one response per call, in call order. */
function responsesTurn(calls: readonly ToolCallBlock[], results: ReadonlyMap<string, ToolResultBlock>, context: ConversationContext): Turn {
  const parts = calls.map((call): WirePart => {
    const wireId = ownData(call.providerData, context.origin)?.[WIRE_ID_KEY] === call.id ? call.id : undefined;
    return { functionResponse: functionResponse(results.get(call.id) ?? unanswered(call), call.name, context.traits.multimodalFunctionResponses, wireId) };
  });
  return { kind: "responses", parts };
}

function toTurns(messages: readonly Message[], context: ConversationContext): Turn[] {
  const turns: Turn[] = [];
  let calls: ToolCallBlock[] = [];
  let results = new Map<string, ToolResultBlock>();
  const flush = () => {
    if (calls.length > 0) turns.push(responsesTurn(calls, results, context));
    calls = [];
    results = new Map();
  };
  for (const message of messages) {
    if (message.role === "tool") {
      for (const result of message.content) if (!results.has(result.callId)) results.set(result.callId, result);
      continue;
    }
    flush();
    switch (message.role) {
      case "system":
        break;
      case "user":
        turns.push({ kind: "user", parts: userParts(message.content) });
        break;
      case "assistant":
        turns.push({ kind: "model", parts: modelParts(message, context.origin) });
        calls = message.content.filter((block): block is ToolCallBlock => block.type === "tool_call");
        break;
    }
  }
  flush();
  return turns;
}

/** Empty turns are dropped; neighbours of one kind are merged (a call turn must be one content). */
function merged(turns: readonly Turn[]): Turn[] {
  const out: Turn[] = [];
  for (const turn of turns) {
    if (turn.parts.length === 0) continue;
    const last = out.at(-1);
    if (last && last.kind === turn.kind) last.parts = [...last.parts, ...turn.parts];
    else out.push({ kind: turn.kind, parts: [...turn.parts] });
  }
  return out;
}

function systemText(messages: readonly Message[]): string | undefined {
  const parts = flatMapped(messages, (message) => (message.role === "system" ? message.content.map((block) => block.text) : []));
  const text = parts.filter((part) => part.trim() !== "").join("\n\n");
  return text === "" ? undefined : text;
}

/** Gemini wants a user turn first; a model without system instructions gets them at its start. */
function withLeadingUser(turns: Turn[], system: string | undefined, inline: boolean): Turn[] {
  const first = turns[0];
  const lead: WirePart[] = inline && system !== undefined ? [{ text: system }] : [];
  if (first?.kind === "user") return lead.length > 0 ? [{ kind: "user", parts: [...lead, ...first.parts] }, ...turns.slice(1)] : turns;
  return [{ kind: "user", parts: lead.length > 0 ? lead : [{ text: PLACEHOLDER_USER_TEXT }] }, ...turns];
}

/** The first call of each step of the current turn gets a signature if it has none (see the file comment). */
function withCurrentTurnSignatures(turns: Turn[]): Turn[] {
  let lastUser = -1;
  turns.forEach((turn, index) => {
    if (turn.kind === "user") lastUser = index;
  });
  return turns.map((turn, index) => {
    if (index < lastUser || turn.kind !== "model") return turn;
    const first = turn.parts.findIndex((part) => part.functionCall !== undefined);
    if (first === -1 || turn.parts[first]!.thoughtSignature) return turn;
    const parts = [...turn.parts];
    parts[first] = { ...parts[first]!, thoughtSignature: FOREIGN_CALL_SIGNATURE };
    return { ...turn, parts };
  });
}

export function toWireConversation(messages: readonly Message[], context: ConversationContext): WireConversation {
  const system = systemText(messages);
  const inlineSystem = !context.traits.systemInstruction;
  let turns = withLeadingUser(merged(toTurns(pairToolResults(messages), context)), system, inlineSystem);
  if (context.traits.signaturesRequired) turns = withCurrentTurnSignatures(turns);
  return {
    ...(system !== undefined && !inlineSystem ? { systemInstruction: { parts: [{ text: system }] } } : {}),
    contents: turns.map((turn) => ({ role: turn.kind === "model" ? "model" : "user", parts: turn.parts })),
  };
}
