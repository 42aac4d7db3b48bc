/**
 * Resources of every upstream server, aggregated. URIs are passed through unchanged (they are
 * usually globally unique: `file:///…`, `demo://…`); the router remembers which server listed
 * which URI and which template, and sends reads, subscriptions and completions there.
 *
 * - A URI listed by two servers belongs to the first of them in config order; the other's entry
 *   is left out of the list (and a warning is logged once).
 * - A URI nobody listed goes to the first server (config order) whose templates match it; else,
 *   when exactly one server has resources, to that one (many servers serve more than they list);
 *   else the read fails with -32002 "Resource not found".
 * - Lists are fetched fresh from every server on each list request (all pages, returned as one
 *   page), so what a client sees is what the servers have now.
 */
import { ListResourcesResultSchema, ListResourceTemplatesResultSchema } from "@modelcontextprotocol/core";
import { UriTemplate, type Resource, type ResourceTemplateType as ResourceTemplate } from "@modelcontextprotocol/server";
import type { Logger } from "../../core/logger.ts";
import { mcpError, RESOURCE_NOT_FOUND } from "./errors.ts";
import type { Upstream } from "./types.ts";

interface TemplateEntry {
  server: string;
  template: string;
  matcher: UriTemplate | undefined;
}

async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  // Bounded: a server that keeps returning cursors cannot keep the gateway listing forever.
  for (let page = 0; page < 1000; page++) {
    const result = await fetchPage(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return items;
}

function compile(template: string): UriTemplate | undefined {
  try {
    return new UriTemplate(template);
  } catch {
    return undefined;
  }
}

export class ResourceRouter {
  private readonly owners = new Map<string, string>();
  private templates: TemplateEntry[] = [];
  private readonly warned = new Set<string>();

  constructor(
    private readonly upstreams: () => Upstream[],
    private readonly logger: Logger,
  ) {}

  private withResources(): Upstream[] {
    return this.upstreams().filter((u) => u.capabilities.resources !== undefined);
  }

  /** Every server's resources (a failing server is left out and logged). */
  async list(): Promise<Resource[]> {
    const servers = this.withResources();
    const lists = await fromEach(
      servers,
      async (u, cursor) => {
        const page = await u.client.request({ method: "resources/list", ...(cursor ? { params: { cursor } } : {}) }, ListResourcesResultSchema, { timeoutMs: u.timeoutMs });
        return { items: page.resources, nextCursor: page.nextCursor };
      },
      (u, error) => {
        this.logger.warn({ server: u.name, err: String(error) }, "listing resources failed");
        return undefined;
      },
    );
    const resources: Resource[] = [];
    const owners = new Map<string, string>();
    servers.forEach((u, i) => {
      for (const resource of lists[i] ?? []) {
        const owner = owners.get(resource.uri);
        if (owner !== undefined) {
          if (owner !== u.name) this.warnClash(resource.uri, owner, u.name);
          continue;
        }
        owners.set(resource.uri, u.name);
        resources.push(resource);
      }
    });
    // Servers that failed to list keep their earlier entries.
    const failed = new Set(servers.filter((_, i) => lists[i] === undefined).map((u) => u.name));
    for (const [uri, server] of this.owners) if (failed.has(server) && !owners.has(uri)) owners.set(uri, server);
    this.owners.clear();
    for (const [uri, server] of owners) this.owners.set(uri, server);
    return resources;
  }

  async listTemplates(): Promise<ResourceTemplate[]> {
    const servers = this.withResources();
    const lists = await fromEach(
      servers,
      async (u, cursor) => {
        const page = await u.client.request({ method: "resources/templates/list", ...(cursor ? { params: { cursor } } : {}) }, ListResourceTemplatesResultSchema, { timeoutMs: u.timeoutMs });
        return { items: page.resourceTemplates, nextCursor: page.nextCursor };
      },
      (u, error) => {
        // Servers without templates answer "method not found": that is an empty list.
        this.logger.debug({ server: u.name, err: String(error) }, "listing resource templates failed");
        return [];
      },
    );
    const templates: ResourceTemplate[] = [];
    const entries: TemplateEntry[] = [];
    const seen = new Map<string, string>();
    servers.forEach((u, i) => {
      for (const template of lists[i] ?? []) {
        const owner = seen.get(template.uriTemplate);
        if (owner !== undefined) {
          if (owner !== u.name) this.warnClash(template.uriTemplate, owner, u.name);
          continue;
        }
        seen.set(template.uriTemplate, u.name);
        templates.push(template);
        entries.push({ server: u.name, template: template.uriTemplate, matcher: compile(template.uriTemplate) });
      }
    });
    this.templates = entries;
    return templates;
  }

  private warnClash(uri: string, kept: string, dropped: string): void {
    const key = `${uri}\u0000${dropped}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn({ uri, kept, dropped }, "two MCP servers list the same resource URI: the first in config order serves it");
  }

  private lookup(uri: string): string | undefined {
    const listed = this.owners.get(uri);
    if (listed !== undefined) return listed;
    return this.templates.find((t) => t.template === uri || t.matcher?.match(uri))?.server;
  }

  /** The server that listed this URI or template (as of the last lists), if any. */
  serverOf(uri: string): string | undefined {
    return this.lookup(uri);
  }

  /** The server a resource URI belongs to; re-lists once when the URI is not known yet. */
  async ownerOf(uri: string): Promise<Upstream> {
    const servers = this.withResources();
    const find = (name: string | undefined) => (name === undefined ? undefined : servers.find((u) => u.name === name));
    let owner = find(this.lookup(uri));
    if (!owner) {
      await Promise.all([this.list(), this.listTemplates()]);
      owner = find(this.lookup(uri));
    }
    if (!owner && servers.length === 1) owner = servers[0];
    if (!owner) throw mcpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    return owner;
  }

  /** The server that listed a resource template (for completion/complete of `ref/resource`). */
  async ownerOfTemplate(uriTemplate: string): Promise<Upstream> {
    return this.ownerOf(uriTemplate);
  }
}

/** Every page of a list from each server, in parallel; a server that fails gets `onError`'s value. */
function fromEach<T, F>(
  servers: Upstream[],
  fetchPage: (server: Upstream, cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  onError: (server: Upstream, error: unknown) => F,
): Promise<(T[] | F)[]> {
  return Promise.all(
    servers.map(async (u) => {
      try {
        return await allPages((cursor) => fetchPage(u, cursor));
      } catch (error) {
        return onError(u, error);
      }
    }),
  );
}
