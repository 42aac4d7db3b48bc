/**
 * Prompts of every upstream server, namespaced exactly like tools: `<server>__<prompt>` by
 * default, the server's `prefix` when configured (`""` keeps the names), sanitized and
 * disambiguated by the same rules (src/mcp/names.ts), so the map back to (server, original
 * name) is exact.
 */
import { ListPromptsResultSchema } from "@modelcontextprotocol/core";
import type { Prompt } from "@modelcontextprotocol/server";
import type { Logger } from "../../core/logger.ts";
import { buildToolNameMap, type ToolNameMap, type ToolRef } from "../../mcp/names.ts";
import { ErrorCode, mcpError } from "./errors.ts";
import { namespaceOwner } from "./namespace.ts";
import type { Upstream } from "./types.ts";

export class PromptRouter {
  private map: ToolNameMap = { names: new Map(), byOriginal: new Map(), collisions: [] };

  constructor(
    private readonly upstreams: () => Upstream[],
    private readonly logger: Logger,
  ) {}

  private withPrompts(): Upstream[] {
    return this.upstreams().filter((u) => u.capabilities.prompts !== undefined);
  }

  async list(): Promise<Prompt[]> {
    const servers = this.withPrompts();
    const lists = await Promise.all(
      servers.map(async (u) => {
        const prompts: Prompt[] = [];
        try {
          let cursor: string | undefined;
          for (let page = 0; page < 1000; page++) {
            const result = await u.client.request(
              { method: "prompts/list", ...(cursor ? { params: { cursor } } : {}) },
              ListPromptsResultSchema,
              { timeoutMs: u.timeoutMs },
            );
            prompts.push(...result.prompts);
            cursor = result.nextCursor;
            if (!cursor) break;
          }
          return prompts;
        } catch (error) {
          this.logger.warn({ server: u.name, err: String(error) }, "listing prompts failed");
          return [];
        }
      }),
    );
    const map = buildToolNameMap(servers.flatMap((u, i) => (lists[i] ?? []).map((p) => ({ server: u.name, prefix: u.prefix, tool: p.name }))));
    this.map = map;
    const out: Prompt[] = [];
    servers.forEach((u, i) => {
      for (const prompt of lists[i] ?? []) {
        const name = map.byOriginal.get(u.name)?.get(prompt.name);
        if (name !== undefined) out.push({ ...prompt, name });
      }
    });
    return out;
  }

  /** The server of an exposed prompt name (as of the last list), if known. */
  serverOf(name: string): string | undefined {
    return this.map.names.get(name)?.server;
  }

  /** (server, original name) of an exposed prompt name; re-lists once when it is unknown. */
  async resolve(name: string): Promise<{ upstream: Upstream; ref: ToolRef }> {
    const find = () => {
      const ref = this.map.names.get(name);
      const upstream = ref ? this.withPrompts().find((u) => u.name === ref.server) : undefined;
      return ref && upstream ? { upstream, ref } : undefined;
    };
    let found = find();
    if (!found) {
      await this.list();
      found = find();
    }
    if (found) return found;
    // Not listed: the server whose namespace it is in answers, as it would directly.
    const owner = namespaceOwner(name, this.withPrompts());
    if (!owner) throw mcpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
    return { upstream: owner.upstream, ref: { server: owner.upstream.name, tool: owner.original } };
  }
}
