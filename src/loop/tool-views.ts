/**
 * Views of a tool set for one request: fewer tools (a policy, a request's own allow/deny), and
 * results cut to a size a model can take. Neutral: the gateway decides which tools and limits.
 */
import { estimateTextTokens, IMAGE_TOKENS } from "../core/token-estimate.ts";
import type { SchemaTarget, ToolDefinition, ToolResultBlock, ToolResultContent, ToolSet } from "../core/index.ts";

/** Only the tools `keep` keeps: the others are neither offered nor run (`refusal` says why to the model). */
export function filterTools(tools: ToolSet, keep: (name: string) => boolean, refusal: (name: string) => string): ToolSet {
  const cache = new Map<SchemaTarget, ToolDefinition[]>();
  return {
    definitions(target) {
      let definitions = cache.get(target);
      if (!definitions) {
        // Filtered, not copied: the definitions keep their identity (the router recognises the gateway's by it).
        definitions = tools.definitions(target).filter((d) => keep(d.name));
        cache.set(target, definitions);
      }
      return definitions;
    },
    // A tool left out is still known: a call of it gets `refusal` (why), not "there is no such tool".
    has: (name) => tools.has(name),
    call: async (call, context) =>
      keep(call.name) ? tools.call(call, context) : { type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: refusal(call.name) }], isError: true },
  };
}

/** `*` a wildcard, the rest literal. */
export function patternMatcher(patterns: readonly string[]): (name: string) => boolean {
  const regexes = patterns.map((p) => new RegExp(`^${p.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`));
  return (name) => regexes.some((r) => r.test(name));
}

export interface ResultLimit {
  /** Tokens a result may have (undefined: no limit). */
  maxTokens?: number | undefined;
  /** False: the model cannot see images, which are replaced by a note. */
  vision?: boolean | undefined;
}

/** Every result of these tools limited (per tool: its server's limit). */
export function limitResults(tools: ToolSet, limitOf: (name: string) => ResultLimit): ToolSet {
  return {
    definitions: (target) => tools.definitions(target),
    has: (name) => tools.has(name),
    call: async (call, context) => limitResult(await tools.call(call, context), limitOf(call.name)),
  };
}

function contentTokens(part: ToolResultContent): number {
  switch (part.type) {
    case "text":
      return estimateTextTokens(part.text);
    case "image":
      return IMAGE_TOKENS;
    case "audio":
      return Math.ceil((part.data.length * 3) / 4 / 32);
    case "resource":
      return estimateTextTokens(part.text ?? part.uri) + (part.blob ? Math.ceil(part.blob.length / 4) : 0);
  }
}

const kb = (base64: string) => `${Math.max(1, Math.round((base64.length * 3) / 4 / 1024))} KB`;

const ASK_FOR_LESS =
  "To see what was cut, call the tool again asking for less at a time: a narrower query or filter, a smaller range, page, offset or limit, or only the fields you need.";

/**
 * A result cut to `maxTokens`, with a note the model can act on; unchanged when it fits. Text is
 * cut at a line end; JSON is shortened as JSON (arrays keep their first items and say how many
 * more there were, long strings are clipped), never cut in half; images and binary contents that
 * do not fit are replaced by a note naming them (and images always, for a model without vision).
 */
export function limitResult(result: ToolResultBlock, limit: ResultLimit): ToolResultBlock {
  let content = result.content;
  let changed = false;
  if (limit.vision === false && content.some((p) => p.type === "image")) {
    content = content.map((p) => (p.type === "image" ? { type: "text" as const, text: `[an image (${p.source.kind === "base64" ? `${p.source.mediaType}, ${kb(p.source.data)}` : p.source.url}) was left out: this model cannot see images]` } : p));
    changed = true;
  }
  const max = limit.maxTokens;
  const total = content.reduce((sum, p) => sum + contentTokens(p), 0);
  if (max === undefined || total <= max) return changed ? { ...result, content } : result;

  const notes: string[] = [];
  // Binary contents first: they cannot be cut, only left out (the newest text is what the model reads).
  let budget = max;
  const kept: ToolResultContent[] = [];
  for (const part of content) {
    if (part.type === "text") {
      kept.push(part);
      continue;
    }
    const tokens = contentTokens(part);
    const textual = part.type === "resource" && part.blob === undefined;
    if (textual) {
      kept.push(part);
      continue;
    }
    if (tokens <= budget / 2) {
      budget -= tokens;
      kept.push(part);
      continue;
    }
    const what = part.type === "image" ? `an image (${part.source.kind === "base64" ? `${part.source.mediaType}, ${kb(part.source.data)}` : part.source.url})` : part.type === "audio" ? `audio (${part.mediaType}, ${kb(part.data)})` : `the contents of ${part.uri} (${part.mimeType ?? "binary"}, ${kb(part.blob ?? "")})`;
    kept.push({ type: "text", text: `[${what} was left out: the result was over the limit of ${max} tokens]` });
    notes.push(`${what} left out`);
  }
  // Text and textual resources share what is left, in proportion to their size.
  const textual = kept.filter((p) => p.type === "text" || (p.type === "resource" && p.blob === undefined));
  const textTokens = textual.reduce((sum, p) => sum + contentTokens(p), 0);
  const out = kept.map((part) => {
    if (!textual.includes(part) || textTokens <= budget) return part;
    const share = Math.max(16, Math.floor((budget * contentTokens(part)) / textTokens) - 60);
    if (part.type === "text") {
      const cut = cutText(part.text, share);
      if (cut.note) notes.push(cut.note);
      return { ...part, text: cut.text };
    }
    if (part.type === "resource" && part.text !== undefined) {
      const cut = cutText(part.text, share);
      if (cut.note) notes.push(`${part.uri}: ${cut.note}`);
      return { ...part, text: cut.text };
    }
    return part;
  });
  const note = `[Result cut: it was about ${total} tokens, over the limit of ${max} tokens per tool result. ${notes.join("; ")}. ${ASK_FOR_LESS}]`;
  const structured = result.structured === undefined ? {} : { structured: shrinkJson(result.structured, max).value };
  return { ...result, ...structured, content: [...out, { type: "text", text: note }] };
}

/** Text cut to about `tokens`: JSON shortened as JSON, other text at a line end. */
function cutText(text: string, tokens: number): { text: string; note?: string } {
  const total = estimateTextTokens(text);
  if (total <= tokens) return { text };
  const trimmed = text.trim();
  if ((trimmed.startsWith("{") || trimmed.startsWith("[")) && trimmed.length < 20_000_000) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      const shrunk = shrinkJson(parsed, tokens);
      const pretty = /\n\s/.test(trimmed.slice(0, 200));
      return { text: JSON.stringify(shrunk.value, null, pretty ? 2 : undefined), note: `the JSON was shortened (${shrunk.notes.join(", ") || "long values clipped"}; it is still valid JSON)` };
    } catch {
      // Not JSON after all: cut as text.
    }
  }
  let chars = Math.max(1, Math.floor((text.length * tokens) / total));
  while (chars > 1 && estimateTextTokens(text.slice(0, chars)) > tokens) chars = Math.floor(chars * 0.9);
  const lineEnd = text.lastIndexOf("\n", chars);
  if (lineEnd > chars * 0.8) chars = lineEnd;
  const lines = text.slice(0, chars).split("\n").length;
  return {
    text: text.slice(0, chars),
    note: `shown: the first ${chars.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters (up to line ${lines.toLocaleString("en-US")}); ${(text.length - chars).toLocaleString("en-US")} characters cut`,
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A JSON value shrunk until its text fits `tokens`: the largest array keeps its first half (and a
 * last item saying how many were left out), or the longest string is clipped, again and again.
 */
export function shrinkJson(value: unknown, tokens: number): { value: unknown; notes: string[] } {
  const box: { [key: string]: Json } = { root: structuredClone(value) as Json };
  const omitted = new Map<string, number>();
  for (let round = 0; round < 64; round++) {
    if (estimateTextTokens(JSON.stringify(box["root"])) <= tokens) break;
    const largest = findLargest(box);
    if (!largest) break;
    const { holder, key, path } = largest;
    const node = holder[key as never] as Json;
    if (Array.isArray(node)) {
      const items = node.filter((item) => !(typeof item === "string" && item.startsWith("… ") && item.endsWith(" more items")));
      const before = omitted.get(path) ?? 0;
      const keep = Math.floor(items.length / 2);
      const dropped = items.length - keep + before;
      omitted.set(path, dropped);
      (holder as Record<string, Json>)[key as string] = [...items.slice(0, keep), `… ${dropped} more items`];
    } else if (typeof node === "string") {
      const keep = Math.floor(node.length / 2);
      (holder as Record<string, Json>)[key as string] = `${node.slice(0, keep)}… [${node.length - keep} more characters]`;
    } else break;
  }
  let current = box["root"]!;
  if (estimateTextTokens(JSON.stringify(current)) > tokens) current = `${JSON.stringify(current).slice(0, tokens * 3)}…`;
  return { value: current, notes: [...omitted].map(([path, n]) => `${path}: ${n} items left out`) };
}

/** The largest array (of more than one item) or string under `node`, with where it is. */
function findLargest(box: { [key: string]: Json }): { holder: Json[] | { [key: string]: Json }; key: string | number; path: string; size: number } | undefined {
  let best: { holder: Json[] | { [key: string]: Json }; key: string | number; path: string; size: number } | undefined;
  const visit = (holder: Json[] | { [key: string]: Json }, key: string | number, node: Json, path: string): number => {
    let size: number;
    if (Array.isArray(node)) {
      size = 2;
      node.forEach((item, i) => (size += visit(node, i, item, `${path}[${i}]`) + 1));
      if (node.length > 2 && (!best || size > best.size)) best = { holder, key, path, size };
    } else if (node !== null && typeof node === "object") {
      size = 2;
      for (const [k, v] of Object.entries(node)) size += k.length + 4 + visit(node, k, v, `${path}.${k}`);
    } else if (typeof node === "string") {
      size = node.length + 2;
      if (node.length > 200 && (!best || size > best.size)) best = { holder, key, path, size };
    } else size = String(node).length;
    return size;
  };
  visit(box, "root", box["root"]!, "$");
  return best;
}
