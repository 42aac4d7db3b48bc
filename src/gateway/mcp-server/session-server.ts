/**
 * The request handlers of one client session's SDK Server: each delegates to the hub. Lists are
 * returned whole (one page); a cursor the gateway never issued is refused.
 */
import type { CallToolRequest, CallToolResult, CompleteRequest, GetPromptRequest, LoggingLevel, Prompt, ReadResourceRequest, Resource, ResourceTemplateType, Tool } from "@modelcontextprotocol/server";
import { ErrorCode, mcpError } from "./errors.ts";
import type { DownstreamSession, RequestExtra } from "./types.ts";

/** What a session's handlers ask of the hub (the hub implements it; declared here so that neither module imports the other back). */
export interface SessionHub {
  touch(session: DownstreamSession): void;
  listTools(session: DownstreamSession): Tool[];
  callTool(session: DownstreamSession, request: CallToolRequest, extra: RequestExtra): Promise<CallToolResult>;
  listResources(session: DownstreamSession): Promise<Resource[]>;
  listResourceTemplates(session: DownstreamSession): Promise<ResourceTemplateType[]>;
  readResource(session: DownstreamSession, request: ReadResourceRequest, extra: RequestExtra): Promise<unknown>;
  subscribe(session: DownstreamSession, uri: string, extra: RequestExtra): Promise<void>;
  unsubscribe(session: DownstreamSession, uri: string, extra?: RequestExtra): Promise<void>;
  listPrompts(session: DownstreamSession): Promise<Prompt[]>;
  getPrompt(session: DownstreamSession, request: GetPromptRequest, extra: RequestExtra): Promise<unknown>;
  complete(session: DownstreamSession, request: CompleteRequest, extra: RequestExtra): Promise<object>;
  setLevel(session: DownstreamSession, level: LoggingLevel, extra: RequestExtra): Promise<void>;
  rootsChanged(session: DownstreamSession): void;
}

function refuseCursor(params: { cursor?: string | undefined } | undefined): void {
  if (params?.cursor !== undefined) throw mcpError(ErrorCode.InvalidParams, "Invalid cursor: the gateway returns every item in one page");
}

export function registerSessionHandlers(hub: SessionHub, session: DownstreamSession): void {
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
    return hub.complete(session, request, extra) as never;
  });

  server.setRequestHandler("logging/setLevel", async (request, extra) => {
    active();
    await hub.setLevel(session, request.params.level, extra);
    await session.onStateChange?.();
    return {};
  });

  server.setNotificationHandler("notifications/roots/list_changed", () => hub.rootsChanged(session));
}
