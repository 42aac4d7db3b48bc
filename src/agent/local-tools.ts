/**
 * Tools defined in the embedding program: a name, a description, a zod schema (sent to the model
 * as JSON Schema, normalized per provider like an MCP tool's) and a handler. Arguments are
 * validated with the zod schema before the handler runs; a failed validation or a thrown error
 * becomes an error result the model can react to, as for MCP tools.
 */
import { z } from "zod";
import type { ToolCallBlock, ToolDefinition, ToolProgress, ToolResultBlock, ToolResultContent } from "../core/index.ts";
import { nativeSignal } from "../core/abort-controller.ts";
import type { JsonSchema } from "../core/content.ts";
import { normalizeSchema } from "../core/schema/index.ts";
import type { SchemaTarget, ToolCallContext, ToolSet } from "../core/tools.ts";

export interface LocalToolContext {
  /** Aborted when the run is cancelled or times out. */
  signal?: AbortSignal;
  /** Reports progress: shown as `tool_progress` events (and in streams with tool events on). */
  reportProgress(progress: ToolProgress): void;
}

/** What a handler returns: text, content blocks with an error flag, or any JSON value (sent as JSON text). */
export type LocalToolOutput = string | { content: ToolResultContent[]; isError?: boolean } | unknown;

export interface LocalTool<S extends z.ZodType = z.ZodType> {
  /** `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`, unique among the agent's tools (MCP ones included). */
  name: string;
  description?: string;
  schema: S;
  handler(args: z.output<S>, context: LocalToolContext): LocalToolOutput | Promise<LocalToolOutput>;
}

export const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/** Types a tool's handler by its schema (an identity at run time). */
export function defineTool<S extends z.ZodType>(tool: LocalTool<S>): LocalTool<S> {
  return tool;
}

function isContentOutput(value: unknown): value is { content: ToolResultContent[]; isError?: boolean } {
  return typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content);
}

function toResult(call: ToolCallBlock, output: unknown): ToolResultBlock {
  if (isContentOutput(output)) return { type: "tool_result", callId: call.id, name: call.name, content: output.content, isError: output.isError === true };
  const text = typeof output === "string" ? output : output === undefined ? "" : JSON.stringify(output);
  return { type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text }], isError: false };
}

function failure(call: ToolCallBlock, text: string): ToolResultBlock {
  return { type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text }], isError: true };
}

/** The JSON Schema of a tool's zod schema, as every provider target expects it (an object). */
function jsonSchemaOf(tool: LocalTool): JsonSchema {
  const schema = z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  delete schema["$schema"];
  return schema;
}

/** The local tools as a tool set the loop runs; definitions normalized once per target. */
export function localToolSet(tools: readonly LocalTool[]): ToolSet {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const schemas = new Map(tools.map((tool) => [tool.name, jsonSchemaOf(tool)]));
  const cache = new Map<SchemaTarget, ToolDefinition[]>();
  const definitions = (target: SchemaTarget): ToolDefinition[] =>
    tools.map((tool) => {
      const normalized = normalizeSchema(schemas.get(tool.name), target);
      // Not expressible in strict mode: sent in the plain form with strict off (as MCP tools are).
      const strict = target === "openai-strict" && normalized.strict !== false;
      const schema = target === "openai-strict" && !strict ? normalizeSchema(schemas.get(tool.name), "openai").schema : normalized.schema;
      return { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: schema, ...(target === "openai-strict" ? { strict } : {}) };
    });
  return {
    definitions(target) {
      let list = cache.get(target);
      if (!list) cache.set(target, (list = definitions(target)));
      return list;
    },
    has: (name) => byName.has(name),
    async call(call: ToolCallBlock, context: ToolCallContext): Promise<ToolResultBlock> {
      const tool = byName.get(call.name);
      if (!tool) return failure(call, `Error: there is no tool named "${call.name}".`);
      const parsed = tool.schema.safeParse(call.arguments);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
        return failure(call, `Error: invalid arguments for ${call.name}: ${problems}. Fix the arguments and call it again.`);
      }
      try {
        const output = await tool.handler(parsed.data, {
          // The caller's code may link it to other signals (AbortSignal.any): Node's own signal.
          ...(context.signal ? { signal: nativeSignal(context.signal) } : {}),
          reportProgress: (progress) => context.onProgress?.(progress),
        });
        return toResult(call, output);
      } catch (error) {
        return failure(call, `Error: the tool failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/** Local tools first, then the MCP tools whose names no local tool takes. */
export function combineToolSets(local: ToolSet, mcp: ToolSet): ToolSet {
  return {
    definitions: (target) => {
      const mine = local.definitions(target);
      const taken = new Set(mine.map((d) => d.name));
      return [...mine, ...mcp.definitions(target).filter((d) => !taken.has(d.name))];
    },
    has: (name) => local.has(name) || mcp.has(name),
    call: (call, context) => (local.has(call.name) ? local.call(call, context) : mcp.call(call, context)),
  };
}
