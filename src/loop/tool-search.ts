/**
 * The tool context budget: when the gateway's tool schemas would cost more than
 * `whenOverTokens` per model call, the model is offered a small search tool (`find_tools`)
 * instead, plus the tools the conversation already used; a tool a search finds is offered from
 * the next model call on. The search ranks the tools' names, descriptions and parameters with
 * BM25 (MiniSearch: BM25+ scoring, prefix and fuzzy matching, no dependencies).
 *
 * With `native` (the provider has a tool search of its own: Anthropic), no search tool is added:
 * the tools not used yet are marked `deferLoading` and the provider's search loads them.
 */
import MiniSearch from "minisearch";
import { normalizeSchema } from "../core/schema/index.ts";
import { estimateToolTokens } from "../core/token-estimate.ts";
import type { Message, SchemaTarget, ToolCallBlock, ToolDefinition, ToolResultBlock, ToolSet } from "../core/index.ts";

export const FIND_TOOLS = "find_tools";

export interface ToolSearchOptions {
  /** Above this many tokens of the gateway's tool schemas, the search tool stands in for them. */
  whenOverTokens: number;
  /** Tools one search returns at most. */
  maxResults: number;
  /** The provider searches the tools itself (Anthropic's defer_loading): mark them instead of offering find_tools. */
  native?: boolean;
}

export interface ToolSearchReport {
  /** The gateway's tools the request could use. */
  tools: number;
  /** The gateway's tools offered on the last model call (the search tool not counted). */
  offered: number;
  /** Tools that searches found. */
  found: string[];
  searches: number;
  /** Tool-schema tokens not sent, summed over the request's model calls (an estimate). */
  tokensSaved: number;
}

interface Doc {
  id: string;
  name: string;
  words: string;
  description: string;
  parameters: string;
}

/** Words of names and text: `files__read_file` and `readFile` are "files read file"; CJK one character a word. */
function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af])/gu, " $1 ")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

const STOP_WORDS = new Set(["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "with", "tool", "tools"]);

function parameterText(schema: ToolDefinition["inputSchema"]): string {
  const properties = schema["properties"];
  if (typeof properties !== "object" || properties === null) return "";
  return Object.entries(properties as Record<string, { description?: unknown }>)
    .map(([name, spec]) => `${name} ${typeof spec?.description === "string" ? spec.description : ""}`)
    .join(" ");
}

function parameterList(schema: ToolDefinition["inputSchema"]): string {
  const properties = schema["properties"];
  if (typeof properties !== "object" || properties === null) return "none";
  const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []);
  const names = Object.entries(properties as Record<string, { type?: unknown }>).map(([name, spec]) => `${name}${typeof spec?.type === "string" ? ` (${spec.type}${required.has(name) ? ", required" : ""})` : required.has(name) ? " (required)" : ""}`);
  return names.length === 0 ? "none" : names.join(", ");
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** What the request offers of the gateway's tools, turn by turn, when the search tool stands in for them. */
export class ToolOffer {
  private readonly byName: Map<string, ToolDefinition>;
  private readonly index: MiniSearch<Doc>;
  /** Offered from the next model call on (found, or used). */
  private readonly loaded = new Set<string>();
  private readonly found = new Set<string>();
  private searches = 0;
  private tokensSaved = 0;
  private lastOffered = 0;
  private deferredCopies: Map<string, ToolDefinition> | undefined;
  private readonly fullTokens: number;
  readonly searchTool: ToolDefinition;
  readonly name: string;

  constructor(
    private readonly all: ToolDefinition[],
    private readonly options: ToolSearchOptions,
    target: SchemaTarget,
    history: readonly Message[],
  ) {
    this.byName = new Map(all.map((d) => [d.name, d]));
    this.fullTokens = estimateToolTokens(all);
    this.name = this.byName.has(FIND_TOOLS) ? `gateway__${FIND_TOOLS}` : FIND_TOOLS;
    this.index = new MiniSearch<Doc>({
      fields: ["name", "words", "description", "parameters"],
      storeFields: ["name"],
      tokenize,
      processTerm: (term) => (STOP_WORDS.has(term) ? null : term),
      searchOptions: { boost: { name: 3, words: 3, parameters: 1.5 }, prefix: true, fuzzy: 0.2, combineWith: "OR" },
    });
    this.index.addAll(all.map((d) => ({ id: d.name, name: d.name, words: d.name, description: d.description ?? "", parameters: parameterText(d.inputSchema) })));
    // Tools the conversation already called stay offered.
    for (const message of history) {
      if (message.role !== "assistant") continue;
      for (const block of message.content) if (block.type === "tool_call" && this.byName.has(block.name)) this.loaded.add(block.name);
    }
    this.searchTool = searchDefinition(this.name, all, target);
  }

  /** Whether the gateway's tools cost more than the budget: then the search tool stands in for them. */
  static needed(all: ToolDefinition[], options: ToolSearchOptions): boolean {
    return all.length > 0 && estimateToolTokens(all) > options.whenOverTokens;
  }

  /** The gateway's tools for the next model call: the search tool and the loaded ones (in registry order). */
  definitions(): ToolDefinition[] {
    if (this.options.native) return this.deferred();
    const offered = this.all.filter((d) => this.loaded.has(d.name));
    this.lastOffered = offered.length;
    this.tokensSaved += Math.max(0, this.fullTokens - estimateToolTokens([this.searchTool, ...offered]));
    return [this.searchTool, ...offered];
  }

  /** Every tool, those not used yet left for the provider's search to load (their schemas are not sent). */
  private deferred(): ToolDefinition[] {
    let copies = this.deferredCopies;
    if (!copies) {
      copies = new Map(this.all.map((d) => [d.name, { ...d, deferLoading: true }]));
      this.deferredCopies = copies;
    }
    const tools = this.all.map((d) => (this.loaded.has(d.name) ? d : copies.get(d.name)!));
    const sent = tools.filter((d) => !d.deferLoading);
    this.lastOffered = sent.length;
    this.tokensSaved += Math.max(0, this.fullTokens - (sent.length > 0 ? estimateToolTokens(sent) : 0));
    return tools;
  }

  /** The model called these: a gateway tool it called (found or not) stays offered. */
  noteCalls(calls: readonly ToolCallBlock[]): void {
    for (const call of calls) {
      if (!this.byName.has(call.name)) continue;
      // Natively, a tool called before it was ever offered was found by the provider's search.
      if (this.options.native && !this.loaded.has(call.name)) this.found.add(call.name);
      this.loaded.add(call.name);
    }
  }

  /** The tool set with the search tool in it (the search runs here; every other call goes to `tools`). */
  wrap(tools: ToolSet): ToolSet {
    if (this.options.native) return tools;
    return {
      definitions: (target) => tools.definitions(target),
      has: (name) => name === this.name || tools.has(name),
      call: async (call, context) => (call.name === this.name ? this.search(call) : tools.call(call, context)),
    };
  }

  report(): ToolSearchReport {
    return { tools: this.all.length, offered: this.lastOffered, found: [...this.found], searches: this.searches, tokensSaved: this.tokensSaved };
  }

  private search(call: ToolCallBlock): ToolResultBlock {
    this.searches++;
    const query = typeof call.arguments["query"] === "string" ? call.arguments["query"].trim() : "";
    const asked = typeof call.arguments["limit"] === "number" ? Math.floor(call.arguments["limit"]) : this.options.maxResults;
    const limit = Math.max(1, Math.min(asked, this.options.maxResults));
    const result = (text: string, isError = false): ToolResultBlock => ({ type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text }], isError });
    if (query === "") return result(`Error: give "query": words for what the tool should do (for example "read a file" or "create an issue").`, true);
    const exact = this.byName.has(query) ? [query] : [];
    const hits = [...exact, ...this.index.search(query).map((hit) => hit.id as string).filter((id) => !exact.includes(id))].slice(0, limit);
    if (hits.length === 0) {
      return result(`No tool matches "${query}". Search again with other words: what the tool does, or what it acts on. Tool groups: ${groups(this.all)}.`);
    }
    for (const name of hits) {
      this.found.add(name);
      this.loaded.add(name);
    }
    const lines = hits.map((name) => {
      const tool = this.byName.get(name)!;
      return `- ${name}: ${clip(tool.description ?? "(no description)", 300)} Parameters: ${parameterList(tool.inputSchema)}.`;
    });
    return result(`Found ${hits.length} tool${hits.length === 1 ? "" : "s"} for "${query}". ${hits.length === 1 ? "It is" : "They are"} offered to you from your next step on: call ${hits.length === 1 ? "it" : "them"} directly then.\n${lines.join("\n")}`);
  }
}

/** `files__read_file` … as "files (14)", by the part before the first `__`. */
function groups(all: readonly ToolDefinition[]): string {
  const counts = new Map<string, number>();
  for (const tool of all) {
    const group = tool.name.includes("__") ? tool.name.slice(0, tool.name.indexOf("__")) : "(other)";
    counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  return [...counts].map(([group, n]) => `${group} (${n})`).join(", ");
}

function searchDefinition(name: string, all: readonly ToolDefinition[], target: SchemaTarget): ToolDefinition {
  const schema = {
    type: "object",
    properties: {
      query: { type: "string", description: "Words for what the tool should do or what it acts on (a tool's name works too)." },
      limit: { type: "integer", description: "How many tools to return at most." },
    },
    required: ["query"],
    additionalProperties: false,
  };
  const normalized = normalizeSchema(schema, target);
  return {
    name,
    description:
      `Finds tools to use. ${all.length} more tools are available but not shown (groups: ${groups(all)}). ` +
      "Describe what you need; the tools found are offered to you from your next step on, with their parameters.",
    inputSchema: normalized.schema,
    ...(target === "openai-strict" ? { strict: normalized.strict !== false } : {}),
  };
}
