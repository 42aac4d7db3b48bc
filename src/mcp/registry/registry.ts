/**
 * The gateway's tools: every tool of every ready MCP server under its namespaced name. A
 * registry is an immutable snapshot with a version; when a server's tools change, the pool
 * builds a new one. Everything derived from the tools (each provider's schemas, argument
 * validators, per-server views) is computed once per snapshot and cached — never per request.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import type { SchemaTarget, ToolCallBlock, ToolCallContext, ToolDefinition, ToolResultBlock, ToolSet } from "../../core/index.ts";
import { normalizeSchema, restoreArguments } from "../../core/schema/index.ts";
import { compileArgumentCheck, type ArgumentCheck } from "./validate-arguments.ts";
import { errorResult, toToolResult } from "./to-tool-result.ts";

export interface RegisteredTool {
  /** The exposed (namespaced) name. */
  name: string;
  server: string;
  /** The tool as the server listed it (original name, schemas, annotations, _meta). */
  tool: Tool;
  /**
   * Listed by its server only to clients with capabilities the gateway cannot serve without an
   * MCP client (elicitation, roots): offered to MCP clients, never to models (see forModels).
   */
  clientOnly?: boolean;
}

export type ToolCaller = (server: string, tool: string, args: Record<string, unknown>, context: ToolCallContext) => Promise<CallToolResult>;

export interface NormalizedTools {
  definitions: ToolDefinition[];
  /** What normalization changed or dropped, per tool. */
  warnings: { tool: string; warning: string }[];
}

export class ToolRegistry implements ToolSet {
  private readonly byName: Map<string, RegisteredTool>;
  private readonly normalizedCache = new Map<SchemaTarget, NormalizedTools>();
  private readonly checks = new Map<string, ArgumentCheck>();
  private readonly views = new Map<string, ToolSet>();
  private modelView: ToolRegistry | undefined;

  constructor(
    readonly version: number,
    tools: readonly RegisteredTool[],
    private readonly caller: ToolCaller,
    /** For a per-server view: the full registry whose normalized schemas are reused. */
    private readonly parent?: ToolRegistry,
  ) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  list(): RegisteredTool[] {
    return [...this.byName.values()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  normalized(target: SchemaTarget): NormalizedTools {
    let cached = this.normalizedCache.get(target);
    if (!cached) {
      cached = this.parent ? this.subsetOf(this.parent.normalized(target)) : normalizeAll(this.list(), target);
      this.normalizedCache.set(target, cached);
    }
    return cached;
  }

  private subsetOf(all: NormalizedTools): NormalizedTools {
    return {
      definitions: all.definitions.filter((d) => this.byName.has(d.name)),
      warnings: all.warnings.filter((w) => this.byName.has(w.tool)),
    };
  }

  definitions(target: SchemaTarget): ToolDefinition[] {
    return this.normalized(target).definitions;
  }

  async call(call: ToolCallBlock, context: ToolCallContext): Promise<ToolResultBlock> {
    const entry = this.byName.get(call.name);
    if (!entry) return errorResult(call.id, call.name, `Error: there is no tool named "${call.name}".`);
    // Undo what normalization made the model send (strict-mode nulls for optional arguments,
    // Gemini's stringified enum values) before checking against the tool's own schema.
    const args = restoreArguments(call.arguments, entry.tool.inputSchema);
    const problem = this.check(entry)(args);
    if (problem) {
      return errorResult(call.id, call.name, `Error: invalid arguments for ${call.name}: ${problem}. Fix the arguments to match the tool's input schema and call it again.`);
    }
    try {
      return toToolResult(call.id, call.name, await this.caller(entry.server, entry.tool.name, args, context));
    } catch (error) {
      return errorResult(call.id, call.name, `Error: ${describeCallError(error, context.signal)}`);
    }
  }

  private check(entry: RegisteredTool): ArgumentCheck {
    if (this.parent) return this.parent.check(entry);
    let check = this.checks.get(entry.name);
    if (!check) {
      check = compileArgumentCheck(entry.tool.inputSchema);
      this.checks.set(entry.name, check);
    }
    return check;
  }

  /**
   * The tools a model may be offered (through /v1 and the other model doors): all but those
   * that need an MCP client. The same registry when there are none; cached per snapshot.
   */
  forModels(): ToolRegistry {
    if (this.parent || !this.list().some((t) => t.clientOnly)) return this;
    this.modelView ??= new ToolRegistry(this.version, this.list().filter((t) => !t.clientOnly), this.caller, this);
    return this.modelView;
  }

  /** The tools of some servers only (all when undefined); views are cached per selection. */
  select(servers: readonly string[] | undefined): ToolSet {
    if (servers === undefined) return this;
    const key = [...new Set(servers)].sort().join(",");
    let view = this.views.get(key);
    if (!view) {
      const wanted = new Set(servers);
      view = new ToolRegistry(this.version, this.list().filter((t) => wanted.has(t.server)), this.caller, this);
      this.views.set(key, view);
    }
    return view;
  }
}

function normalizeAll(tools: RegisteredTool[], target: SchemaTarget): NormalizedTools {
  const warnings: NormalizedTools["warnings"] = [];
  const definitions = tools.map((entry): ToolDefinition => {
    let normalized = normalizeSchema(entry.tool.inputSchema, target);
    const strict = target === "openai-strict" && normalized.strict !== false;
    if (target === "openai-strict" && !strict) {
      // Not expressible in strict mode (free-form objects, recursion, limits): this tool goes
      // out in the plain OpenAI form with strict off; the warnings say why.
      const reasons = normalized.warnings;
      normalized = normalizeSchema(entry.tool.inputSchema, "openai");
      normalized = { ...normalized, warnings: [...reasons, "sent with strict: false", ...normalized.warnings] };
    }
    for (const warning of normalized.warnings) warnings.push({ tool: entry.name, warning });
    const description = entry.tool.description ?? entry.tool.title ?? entry.tool.annotations?.title;
    return {
      name: entry.name,
      ...(description === undefined ? {} : { description }),
      inputSchema: normalized.schema,
      ...(target === "openai-strict" ? { strict } : {}),
    };
  });
  return { definitions, warnings };
}

function describeCallError(error: unknown, signal: AbortSignal | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  // Checked first: the SDK rejects an aborted request with the RequestTimeout code too, which
  // made a cancelled call read "did not answer in time".
  if (signal?.aborted) return `the call was cancelled (${message})`;
  const code = (error as { code?: unknown }).code;
  // The MCP SDK's RequestTimeout (a local SdkError; -32001 from a server that relays one).
  if (code === "REQUEST_TIMEOUT" || code === -32001) return `the tool did not answer in time (${message})`;
  return message;
}
