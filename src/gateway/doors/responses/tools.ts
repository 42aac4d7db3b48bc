/**
 * The tools of a Responses request, sorted by who runs them and how a call comes back:
 * - function and custom (freeform) tools, also inside `namespace` tools (Codex's MCP servers,
 *   `mcp__<server>`), and Codex's client-run `tool_search`: the client's, offered to the model
 *   under one flat name each and mapped back exactly (`function_call` with its `namespace`,
 *   `custom_tool_call` with its raw input, `tool_search_call`);
 * - `mcp` tools: select configured MCP servers for this request (as `x-mcp-servers` does);
 * - hosted tools (`web_search`, `file_search`, …): OpenAI runs them; passed to Responses upstreams.
 */
import type { JsonSchema, ToolDefinition } from "../../../core/index.ts";
import type { CustomToolSpec, FunctionToolSpec, InputItem, McpToolSpec, RequestTool } from "./request-schema.ts";
import { flatMapped } from "../../../core/flat-mapped.ts";

/** How a call of one of the client's tools is written back. */
export type ClientToolKind =
  | { kind: "function"; name: string; namespace?: string }
  | { kind: "custom"; name: string; namespace?: string }
  | { kind: "tool_search" };

export interface ToolPlan {
  /** The client's tools as neutral tools (flat names). */
  tools: ToolDefinition[];
  /** Neutral name → how its calls go back to the client. */
  kinds: Map<string, ClientToolKind>;
  /** Hosted tools, as sent. */
  hosted: { [key: string]: unknown }[];
  mcp: McpToolSpec[];
}

/** What the model is told a freeform tool's one argument is. */
const FREEFORM_INPUT = "The tool's input: raw text (not JSON), exactly as the tool's description and format ask.";

export const TOOL_SEARCH_NAME = "tool_search";

const DEFAULT_SEARCH_PARAMETERS: JsonSchema = {
  type: "object",
  properties: { query: { type: "string", description: "What to search for" }, limit: { type: "integer", description: "How many tools at most" } },
  required: ["query"],
};

/** A namespaced tool's one name for models that have no namespaces. */
export function flatName(namespace: string | undefined, name: string): string {
  return namespace === undefined ? name : `${namespace}__${name}`;
}

function freeformSchema(spec: CustomToolSpec): JsonSchema {
  const grammar = spec.format && spec.format.type === "grammar" && typeof spec.format["definition"] === "string" ? `\nIt must follow this ${String(spec.format["syntax"] ?? "")} grammar:\n${spec.format["definition"]}` : "";
  return { type: "object", properties: { input: { type: "string", description: FREEFORM_INPUT + grammar } }, required: ["input"], additionalProperties: false };
}

function functionDefinition(spec: FunctionToolSpec, name: string, deferred: boolean): ToolDefinition {
  return {
    name,
    ...(spec.description ? { description: spec.description } : {}),
    inputSchema: spec.parameters ?? { type: "object", properties: {} },
    ...(spec.strict == null ? {} : { strict: spec.strict }),
    ...(deferred ? { deferred: true } : {}),
  };
}

function customDefinition(spec: CustomToolSpec, name: string, deferred: boolean): ToolDefinition {
  return {
    name,
    ...(spec.description ? { description: spec.description } : {}),
    inputSchema: freeformSchema(spec),
    freeform: spec.format ? { format: spec.format } : {},
    ...(deferred ? { deferred: true } : {}),
  };
}

/** Tools a `tool_search_output` loaded: offered from then on (tool search done by the client). */
function loadedTools(items: readonly InputItem[]): RequestTool[] {
  return flatMapped(items, (item) => (item.type === "tool_search_output" && Array.isArray(item["tools"]) ? (item["tools"] as RequestTool[]) : []));
}

export function planTools(tools: readonly RequestTool[] | undefined, items: readonly InputItem[]): ToolPlan {
  const plan: ToolPlan = { tools: [], kinds: new Map(), hosted: [], mcp: [] };
  const loaded = loadedTools(items);
  const loadedNames = new Set<string>();
  const add = (spec: FunctionToolSpec | CustomToolSpec, namespace: string | undefined, fromSearch: boolean) => {
    const name = flatName(namespace, spec.name);
    if (plan.kinds.has(name)) {
      if (fromSearch) loadedNames.add(name);
      return;
    }
    const deferred = spec.defer_loading === true && !fromSearch;
    plan.tools.push(spec.type === "custom" ? customDefinition(spec, name, deferred) : functionDefinition(spec, name, deferred));
    plan.kinds.set(name, { kind: spec.type === "custom" ? "custom" : "function", name: spec.name, ...(namespace === undefined ? {} : { namespace }) });
  };
  const visit = (tool: RequestTool, fromSearch: boolean) => {
    switch (tool.type) {
      case "function":
      case "custom":
        add(tool as FunctionToolSpec | CustomToolSpec, undefined, fromSearch);
        return;
      case "namespace":
        for (const inner of (tool as { tools: (FunctionToolSpec | CustomToolSpec)[] }).tools) add(inner, tool.name as string, fromSearch);
        return;
      case "mcp":
        plan.mcp.push(tool as McpToolSpec);
        return;
      case "tool_search": {
        const parameters = (tool as { parameters?: JsonSchema | null }).parameters;
        plan.tools.push({ name: TOOL_SEARCH_NAME, description: String(tool["description"] ?? "Searches for more tools and loads them."), inputSchema: parameters ?? DEFAULT_SEARCH_PARAMETERS });
        plan.kinds.set(TOOL_SEARCH_NAME, { kind: "tool_search" });
        return;
      }
      default:
        plan.hosted.push(tool);
    }
  };
  for (const tool of tools ?? []) visit(tool, false);
  for (const tool of loaded) visit(tool, true);
  // A deferred tool that a search loaded is offered.
  if (loadedNames.size > 0) plan.tools = plan.tools.map((tool) => (loadedNames.has(tool.name) && tool.deferred ? { ...tool, deferred: false } : tool));
  return plan;
}
