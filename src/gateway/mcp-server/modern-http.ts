/**
 * `/mcp` for 2026-07-28 clients: stateless, a fresh SDK Server per request (the SDK's
 * createMcpHandler, modern-only; 2025-11-25 traffic is routed to the session endpoint before it
 * gets here). The SDK answers `server/discover`, checks each request's `_meta` envelope and its
 * Mcp-Method / Mcp-Name headers against the body (-32020), the protocol version (-32022) and the
 * client capabilities a request needs (-32021), adds `resultType` and the lists' cache fields,
 * and serves `subscriptions/listen` streams, which the hub's change notifications are published
 * to. The `Mcp-Param-*` headers of a `tools/call` are the gateway's to check (./param-headers.ts):
 * the SDK checks them only for tools of its McpServer. Any instance answers any request: nothing is kept between requests, but for the rare
 * multi-round exchange (./input-exchange.ts).
 */
import { createMcpHandler, type AuthInfo, type McpHttpHandler, type McpRequestContext } from "@modelcontextprotocol/server";
import type { Logger } from "../../core/logger.ts";
import type { KeyPolicy } from "../shared/keys.ts";
import type { McpHub } from "./hub.ts";
import { InputExchanges } from "./input-exchange.ts";
import { modernServer, publishChange } from "./modern-server.ts";
import { headerDeclarations, headerMismatchResponse, paramHeaderMismatch } from "./param-headers.ts";
import type { AnswerWatch } from "../http/client-gone.ts";
import { whenBodyDone } from "./stream-end.ts";

export interface ModernCaller {
  /** The policy of the gateway key the request came with. */
  key?: KeyPolicy | undefined;
  /** The key's digest (hex), when gateway.apiKeys is set: a multi-round exchange belongs to it. */
  owner?: string | undefined;
}

/** What the gateway passes the SDK as the request's (already validated) auth info. */
interface CallerAuth extends AuthInfo {
  extra: { caller: ModernCaller };
}

export class ModernMcpEndpoint {
  private readonly handler: McpHttpHandler;
  private readonly exchanges: InputExchanges;
  private readonly stopListening: () => void;

  constructor(private readonly options: { hub: McpHub; logger: Logger }) {
    this.exchanges = new InputExchanges({ timeoutMs: options.hub.clientRequestTimeoutMs, logger: options.logger });
    this.handler = createMcpHandler((ctx) => this.serverFor(ctx), {
      legacy: "reject",
      onerror: (error) => options.logger.debug({ err: error.message }, "mcp (2026-07-28) request refused or failed"),
    });
    this.stopListening = options.hub.onBroadcast((notification) => publishChange(this.handler.notify, notification));
  }

  private serverFor(ctx: McpRequestContext) {
    const caller = (ctx.authInfo as CallerAuth | undefined)?.extra.caller;
    // Every request comes through fetch() below, with its caller: a missing one is a bug, and
    // must not widen what a key may see.
    if (!caller) throw new Error("mcp-gateway: a 2026-07-28 request reached the SDK without its caller");
    return modernServer({ hub: this.options.hub, exchanges: this.exchanges, key: caller.key, owner: caller.owner });
  }

  /** Serves one 2026-07-28 request; `body` is its parsed JSON body (POST); `watch` sees the end of its answer on our Node server. */
  async fetch(request: Request, body: unknown, caller: ModernCaller, watch?: AnswerWatch): Promise<Response> {
    const refused = this.checkParamHeaders(request, body, caller.key);
    if (refused) return refused;
    const authInfo: CallerAuth = { token: caller.owner ?? "", clientId: "mcp-gateway-key", scopes: [], extra: { caller } };
    const release = await this.holdListenedResources(body, caller.key);
    let response: Response;
    try {
      response = await this.handler.fetch(request, { authInfo, ...(body === undefined ? {} : { parsedBody: body }) });
    } catch (error) {
      release?.();
      throw error;
    }
    return release ? whenBodyDone(response, release, watch) : response;
  }

  /**
   * A `tools/call` of a listed tool that declares `x-mcp-header` arguments: its `Mcp-Param-*`
   * headers must match them (./param-headers.ts). Checked before the SDK serves the request (its
   * answer is HTTP 400), so it comes before the SDK's own checks of the standard headers and the
   * envelope, which an SDK server makes first.
   */
  private checkParamHeaders(request: Request, body: unknown, key: KeyPolicy | undefined): Response | undefined {
    const message = body as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null | undefined;
    if (message?.method !== "tools/call" || typeof message.params?.name !== "string") return undefined;
    const tool = this.options.hub.upstreamTool(message.params.name, key);
    if (!tool) return undefined;
    const mismatch = paramHeaderMismatch(headerDeclarations(tool.inputSchema), message.params.arguments, request.headers);
    return mismatch === undefined ? undefined : headerMismatchResponse(message.id, mismatch);
  }

  /**
   * A `subscriptions/listen` asking for resource updates: the gateway subscribes upstream to
   * those URIs for as long as the stream is open (the returned function lets go).
   */
  private async holdListenedResources(body: unknown, key: KeyPolicy | undefined): Promise<(() => void) | undefined> {
    const message = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined;
    if (message?.method !== "subscriptions/listen") return undefined;
    const uris = message.params?.notifications?.resourceSubscriptions;
    if (!Array.isArray(uris) || uris.length === 0) return undefined;
    return this.options.hub.holdResources(uris.filter((u): u is string => typeof u === "string"), key);
  }

  async close(): Promise<void> {
    this.stopListening();
    this.exchanges.close();
    await this.handler.close();
  }
}
