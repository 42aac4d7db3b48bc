/**
 * The request handlers of one client session's SDK Server: each delegates to the hub. Lists are
 * returned whole (one page); a cursor the gateway never issued is refused.
 */
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { mcpError } from "./errors.ts";
import type { McpHub } from "./hub.ts";
import type { DownstreamSession } from "./types.ts";

function refuseCursor(params: { cursor?: string | undefined } | undefined): void {
  if (params?.cursor !== undefined) throw mcpError(ErrorCode.InvalidParams, "Invalid cursor: the gateway returns every item in one page");
}

export function registerSessionHandlers(hub: McpHub, session: DownstreamSession): void {
  const server = session.server;
  const active = () => hub.touch(session);

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    active();
    refuseCursor(request.params);
    return { tools: hub.listTools(session) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    active();
    return hub.callTool(session, request, extra);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    active();
    refuseCursor(request.params);
    return { resources: await hub.listResources(session) };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request) => {
    active();
    refuseCursor(request.params);
    return { resourceTemplates: await hub.listResourceTemplates(session) };
  });
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
    active();
    return hub.readResource(session, request, extra) as never;
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    active();
    await hub.subscribe(session, request.params.uri, extra);
    await session.onStateChange?.();
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    active();
    await hub.unsubscribe(session, request.params.uri, extra);
    await session.onStateChange?.();
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
    active();
    refuseCursor(request.params);
    return { prompts: await hub.listPrompts(session) };
  });
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) => {
    active();
    return hub.getPrompt(session, request, extra) as never;
  });

  server.setRequestHandler(CompleteRequestSchema, (request, extra) => {
    active();
    return hub.complete(session, request, extra);
  });

  server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
    active();
    await hub.setLevel(session, request.params.level, extra);
    await session.onStateChange?.();
    return {};
  });

  server.setNotificationHandler(RootsListChangedNotificationSchema, () => hub.rootsChanged(session));
}
