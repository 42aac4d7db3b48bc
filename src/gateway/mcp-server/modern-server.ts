/**
 * The gateway's SDK Server for one request of a 2026-07-28 client (HTTP: one per request; stdio:
 * one per connection). It serves the same aggregated tools, resources, prompts, completions and
 * `chat` tool as a 2025-11-25 session, from the hub. There is no session: the client's
 * capabilities and log level come with each request (the SDK reads them from `_meta`), list
 * changes and resource updates reach the client on its `subscriptions/listen` stream, and a
 * question an upstream server asks mid-call goes back as an InputRequiredResult (./input-exchange.ts).
 */
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, type ClientCapabilities, type LoggingLevel, type Server, type ServerNotification, type ServerNotifier } from "@modelcontextprotocol/server";
import { LEVELS } from "./client-relay.ts";
import type { KeyPolicy } from "../shared/keys.ts";
import { ErrorCode, mcpError } from "./errors.ts";
import type { McpHub } from "./hub.ts";
import { isExchangeState, type InputExchanges } from "./input-exchange.ts";
import type { DownstreamSession, ModernInput, RequestExtra } from "./types.ts";

export interface ModernServerOptions {
  hub: McpHub;
  exchanges: InputExchanges;
  /** The policy of the gateway key the request came with. */
  key?: KeyPolicy | undefined;
  /** Who may resume an exchange this server starts (the key's digest): see InputExchanges. */
  owner?: string | undefined;
}

/**
 * A change notification meant for every client, published to 2026-07-28 clients' listen streams
 * (HTTP: the handler's notifier; stdio: the connection's server, which the SDK routes there).
 */
export function publishChange(notifier: ServerNotifier, notification: ServerNotification): void {
  switch (notification.method) {
    case "notifications/tools/list_changed":
      return notifier.toolsChanged();
    case "notifications/prompts/list_changed":
      return notifier.promptsChanged();
    case "notifications/resources/list_changed":
      return notifier.resourcesChanged();
    case "notifications/resources/updated":
      return notifier.resourceUpdated(notification.params.uri);
    default:
      return;
  }
}

/** The log level a 2026-07-28 request asked for (none: no log messages). */
function logLevelOf(ctx: RequestExtra): LoggingLevel | undefined {
  const level = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY];
  return typeof level === "string" && (LEVELS as readonly string[]).includes(level) ? (level as LoggingLevel) : undefined;
}

/**
 * The retry material a request carries for its 2026-07-28 upstream server (a requestState the
 * gateway minted is its own), and the client's capabilities.
 */
function upstreamInput(ctx: RequestExtra, server: Server): ModernInput {
  const state = ctx.mcpReq.requestState<string>();
  return {
    inputResponses: ctx.mcpReq.inputResponses,
    requestState: isExchangeState(state) ? undefined : state,
    capabilities: capabilitiesOf(ctx) ?? server.getClientCapabilities(),
  };
}

/** What the client says it can do, with this request (the SDK checked the envelope's shape). */
function capabilitiesOf(ctx: RequestExtra): ClientCapabilities | undefined {
  return (ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
}

function refuseCursor(params: { cursor?: string | undefined } | undefined): void {
  if (params?.cursor !== undefined) throw mcpError(ErrorCode.InvalidParams, "Invalid cursor: the gateway returns every item in one page");
}

export function modernServer(options: ModernServerOptions): Server {
  const { hub, exchanges, key, owner } = options;
  const server = hub.newServer();
  /** A request that asks nothing of the client (lists, completions). */
  const view = (ctx: RequestExtra) => hub.requestSession(server, { key, logLevel: logLevelOf(ctx), capabilities: capabilitiesOf(ctx) });
  /** A request that may span rounds: its session lives (and is routed to) until its work ends. */
  const exchange = <R>(ctx: RequestExtra, work: (session: DownstreamSession, extra: RequestExtra) => Promise<R>) =>
    exchanges.round(ctx, owner, async (channel) => {
      const session = hub.requestSession(server, {
        key,
        logLevel: logLevelOf(ctx),
        capabilities: capabilitiesOf(ctx),
        ask: channel.ask,
        upstreamInput: upstreamInput(ctx, server),
      });
      try {
        return await work(session, channel.extra);
      } finally {
        await hub.removeSession(session);
      }
    });

  server.setRequestHandler("tools/list", (request, ctx) => {
    refuseCursor(request.params);
    return { tools: hub.listTools(view(ctx)) };
  });
  server.setRequestHandler("tools/call", (request, ctx) => exchange(ctx, (session, extra) => hub.callTool(session, request, extra)) as never);
  server.setRequestHandler("resources/list", async (request, ctx) => {
    refuseCursor(request.params);
    return { resources: await hub.listResources(view(ctx)) };
  });
  server.setRequestHandler("resources/templates/list", async (request, ctx) => {
    refuseCursor(request.params);
    return { resourceTemplates: await hub.listResourceTemplates(view(ctx)) };
  });
  server.setRequestHandler("resources/read", (request, ctx) => exchange(ctx, (session, extra) => hub.readResource(session, request, extra)) as never);
  server.setRequestHandler("prompts/list", async (request, ctx) => {
    refuseCursor(request.params);
    return { prompts: await hub.listPrompts(view(ctx)) };
  });
  server.setRequestHandler("prompts/get", (request, ctx) => exchange(ctx, (session, extra) => hub.getPrompt(session, request, extra)) as never);
  server.setRequestHandler("completion/complete", (request, ctx) => hub.complete(view(ctx), request, ctx));
  return server;
}
