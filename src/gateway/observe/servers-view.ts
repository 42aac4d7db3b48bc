/**
 * The servers page's data: each MCP server's state, and its tools with the input schema as the
 * server lists it and as each provider dialect in use gets it, with what the conversion changed.
 */
import type { SchemaTarget } from "../../core/index.ts";
import type { McpPool } from "../../mcp/pool.ts";
import type { ProviderEntry } from "../routing/providers.ts";
import type { Scrub } from "./excerpt.ts";
import type { ServerView } from "./observability.ts";

export function serverViews(pool: McpPool, providers: ReadonlyMap<string, ProviderEntry>, scrub: Scrub): Omit<ServerView, "lastErrors">[] {
  const byTarget = new Map<SchemaTarget, string[]>();
  for (const provider of providers.values()) {
    const names = byTarget.get(provider.schemaTarget) ?? [];
    names.push(provider.name);
    byTarget.set(provider.schemaTarget, names);
  }
  const registry = pool.registry;
  const targets = [...byTarget].map(([target, names]) => {
    const normalized = registry.normalized(target);
    return { target, providers: names, definitions: new Map(normalized.definitions.map((d) => [d.name, d])), warnings: normalized.warnings };
  });
  const tools = registry.list();
  return pool.states().map((state) => ({
    name: state.name,
    transport: state.transport,
    status: state.status,
    toolCount: state.toolCount,
    restarts: state.restarts,
    attempts: state.attempts,
    ...(state.startupMs === undefined ? {} : { startupMs: state.startupMs }),
    ...(state.error === undefined ? {} : { error: scrub(state.error) }),
    ...(state.retryAt === undefined ? {} : { retryAt: state.retryAt }),
    tools: tools
      .filter((entry) => entry.server === state.name)
      .map((entry) => ({
        name: entry.name,
        tool: entry.tool.name,
        ...(entry.tool.description === undefined ? {} : { description: entry.tool.description }),
        inputSchema: entry.tool.inputSchema,
        targets: targets.map(({ target, providers: names, definitions, warnings }) => {
          const definition = definitions.get(entry.name);
          return {
            target,
            providers: names,
            inputSchema: definition?.inputSchema,
            ...(definition?.strict === undefined ? {} : { strict: definition.strict }),
            warnings: warnings.filter((w) => w.tool === entry.name).map((w) => w.warning),
          };
        }),
      })),
  }));
}
