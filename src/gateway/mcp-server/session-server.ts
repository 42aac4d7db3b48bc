/**
 * The request handlers of one client session's SDK Server: each delegates to the hub. Lists are
 * returned whole (one page); a cursor the gateway never issued is refused.
 */
import { ErrorCode, mcpError } from "./errors.ts";
import type { McpHub } from "./hub.ts";
import type { DownstreamSession } from "./types.ts";

function refuseCursor(params: { cursor?: string | undefined } | undefined): void {
  if (params?.cursor !== undefined) throw mcpError(ErrorCode.InvalidParams, "Invalid cursor: the gateway returns every item in one page");
}

export function registerSessionHandlers(hub: McpHub, session: DownstreamSession): void {
  const server = session.server;
  const active = () => hub.touch(session);

  server.setRequestHandler("tools/list", (request) => {
    active();
    refuseCursor(request.params);
    return { tools: hub.listTools(session) };
  });
  server.setRequestHandler("tools/call", (request, extra) => {
    active();
    return hub.callTool(session, request, extra);
  });

  server.setRequestHandler("resources/list", async (request) => {
    active();
    refuseCursor(request.params);
    return { resources: await hub.listResources(session) };
  });
  server.setRequestHandler("resources/templates/list", async (request) => {
    active();
    refuseCursor(request.params);
    return { resourceTemplates: await hub.listResourceTemplates(session) };
  });
  server.setRequestHandler("resources/read", (request, extra) => {
    active();
    return hub.readResource(session, request, extra) as never;
  });
  server.setRequestHandler("resources/subscribe", async (request, extra) => {
    active();
    await hub.subscribe(session, request.params.uri, extra);
    await session.onStateChange?.();
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", async (request, extra) => {
    active();
    await hub.unsubscribe(session, request.params.uri, extra);
    await session.onStateChange?.();
    return {};
  });

  server.setRequestHandler("prompts/list", async (request) => {
    active();
    refuseCursor(request.params);
    return { prompts: await hub.listPrompts(session) };
  });
  server.setRequestHandler("prompts/get", (request, extra) => {
    active();
    return hub.getPrompt(session, request, extra) as never;
  });

  server.setRequestHandler("completion/complete", (request, extra) => {
    active();
    return hub.complete(session, request, extra);
  });

  server.setRequestHandler("logging/setLevel", async (request, extra) => {
    active();
    await hub.setLevel(session, request.params.level, extra);
    await session.onStateChange?.();
    return {};
  });

  server.setNotificationHandler("notifications/roots/list_changed", () => hub.rootsChanged(session));
}
