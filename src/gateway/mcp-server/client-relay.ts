/**
 * What upstream servers send back that is not a response — requests (sampling, elicitation,
 * roots) and log messages — routed to the client whose request caused them: the one session with
 * requests in flight to that server. Anything else is never handed to an HTTP session (they may
 * belong to other API keys): with nothing in flight, or requests of several sessions (or of /v1)
 * in flight to that server, requests are refused and log messages only logged by the gateway;
 * the stdio client, the only client of its gateway, still gets them.
 *
 * A 2025-11-25 client is sent the request; a 2026-07-28 client is asked through its request's
 * exchange (DownstreamSession.ask: an InputRequiredResult).
 */
import { CreateMessageResultSchema, CreateMessageResultWithToolsSchema, ElicitResultSchema, ListRootsResultSchema } from "@modelcontextprotocol/core";
import type { ClientCapabilities, LoggingLevel, LoggingMessageNotification, ServerNotification, StandardSchemaV1 } from "@modelcontextprotocol/server";
import type { Logger } from "../../core/logger.ts";
import type { SchemaOutput } from "../../mcp/pool.ts";
import { ErrorCode, mcpError, relayError } from "./errors.ts";
import type { ModelDeps } from "./model-runner.ts";
import { sampleWithModel } from "./sampling.ts";
import type { ClientRequest, DownstreamSession, RequestExtra } from "./types.ts";

/** A request being served by upstream servers (for routing what they send back). */
interface InFlight {
  seq: number;
  /** The MCP session whose request it is; undefined for /v1 traffic. */
  session: DownstreamSession | undefined;
  extra: RequestExtra | undefined;
  servers: ReadonlySet<string> | "all";
}

/** Whose request an upstream server's message (request, log) belongs to. */
type Attribution =
  /** Only this session has requests in flight to the server (`related`: its latest). */
  | { kind: "session"; session: DownstreamSession; related: RequestExtra }
  /** Only /v1 requests are in flight to the server: no MCP client may see it. */
  | { kind: "outside" }
  /** Requests of several sessions (or of a session and /v1) are in flight: which one is unknown. */
  | { kind: "ambiguous" }
  /** Nothing is in flight to the server: it speaks on its own. */
  | { kind: "none" };

export interface Target {
  session: DownstreamSession;
  /** The downstream request the message belongs to, when known. */
  related?: RequestExtra;
}

export interface ClientRelayDeps {
  logger: Logger;
  /** For answering sampling with gateway.sampling.model. */
  models: ModelDeps;
  /** How long a client may take to answer (a human may be involved). */
  clientRequestTimeoutMs: number;
  /** The connected clients: a request of one that is gone belongs to nobody. */
  sessions: ReadonlyMap<string, DownstreamSession>;
  /** Sends on the related request's stream when there is one, else on the session's own. */
  notify(session: DownstreamSession, notification: ServerNotification, related?: RequestExtra): Promise<void>;
}

export const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** What the client can do: said at initialize (2025-11-25), or with each request (2026-07-28). */
export function clientCapabilities(session: DownstreamSession): ClientCapabilities | undefined {
  return session.capabilities ?? session.server.getClientCapabilities();
}

/** A client's answer checked against the result schema of what it was asked. */
async function validated<S extends StandardSchemaV1>(schema: S, value: unknown, method: string): Promise<SchemaOutput<S>> {
  const outcome = await schema["~standard"].validate(value);
  if (outcome.issues) throw mcpError(ErrorCode.InvalidParams, `The client's answer to ${method} is not valid: ${outcome.issues.map((i) => i.message).join("; ")}`);
  return outcome.value as SchemaOutput<S>;
}

export class ClientRelay {
  private readonly inflight = new Set<InFlight>();
  private seq = 0;

  constructor(private readonly deps: ClientRelayDeps) {}

  /** Runs `work` as a request served by `servers` (for routing what they send back); no session: /v1. */
  async track<T>(session: DownstreamSession | undefined, extra: RequestExtra | undefined, servers: ReadonlySet<string> | "all", work: () => Promise<T>): Promise<T> {
    const entry: InFlight = { seq: ++this.seq, session, extra, servers };
    this.inflight.add(entry);
    try {
      return await work();
    } finally {
      this.inflight.delete(entry);
    }
  }

  /** A session went away: its requests no longer claim anything. */
  forget(session: DownstreamSession): void {
    for (const f of this.inflight) if (f.session === session) this.inflight.delete(f);
  }

  private attribute(server: string): Attribution {
    const owners = new Set<DownstreamSession | undefined>();
    let latest: InFlight | undefined;
    for (const f of this.inflight) {
      if (f.servers !== "all" && !f.servers.has(server)) continue;
      owners.add(f.session);
      if (!latest || f.seq > latest.seq) latest = f;
    }
    if (!latest) return { kind: "none" };
    if (owners.size > 1) return { kind: "ambiguous" };
    const session = latest.session;
    if (!session || !latest.extra) return { kind: "outside" };
    return this.deps.sessions.get(session.id) === session ? { kind: "session", session, related: latest.extra } : { kind: "none" };
  }

  /** The stdio client: the gateway's only client, which may get what belongs to no request. */
  private soleClient(): DownstreamSession | undefined {
    for (const s of this.deps.sessions.values()) if (s.kind === "stdio" && s.initialized) return s;
    return undefined;
  }

  /**
   * The client to pass an upstream server's request or message to: the session whose request it
   * belongs to, else the stdio client; or why there is none (never another HTTP session).
   */
  target(server: string, what: string): Target | { refused: Error; outside: boolean } {
    const attribution = this.attribute(server);
    if (attribution.kind === "session") return { session: attribution.session, related: attribution.related };
    const sole = attribution.kind === "none" ? this.soleClient() : undefined;
    if (sole) return { session: sole };
    const why =
      attribution.kind === "ambiguous"
        ? `requests of several clients are in flight to MCP server "${server}", so the gateway cannot tell whose it is`
        : attribution.kind === "outside"
          ? `MCP server "${server}" made it while serving a /v1 request, which has no MCP client to ask`
          : `MCP server "${server}" made it outside any client request, and the gateway passes it to no other client`;
    return { refused: mcpError(ErrorCode.InvalidRequest, `The gateway refused ${what}: ${why}`), outside: attribution.kind === "outside" };
  }

  async requestClient<S extends StandardSchemaV1>(target: Target, request: ClientRequest, schema: S, signal: AbortSignal): Promise<SchemaOutput<S>> {
    const options = { signal, timeout: this.deps.clientRequestTimeoutMs };
    if (target.session.ask) return validated(schema, await target.session.ask(request), request.method);
    try {
      if (target.related) {
        try {
          return await target.related.mcpReq.send(request as never, schema, options);
        } catch (error) {
          // The request's stream is gone (answered meanwhile): ask on the session's own stream.
          if (!(error instanceof Error) || !/No connection established/.test(error.message)) throw error;
        }
      }
      return await target.session.server.request(request as never, schema, options);
    } catch (error) {
      throw relayError(error);
    }
  }

  async onSampling(server: string, params: Record<string, unknown> & { tools?: unknown; toolChoice?: unknown }, signal: AbortSignal) {
    const target = this.target(server, "sampling/createMessage");
    const models = this.deps.models;
    const model = models.config.gateway.sampling?.model;
    if ("refused" in target) {
      // /v1 traffic has no client to ask, but the gateway's own sampling model may answer it.
      if (!target.outside || !model) throw target.refused;
    } else if (clientCapabilities(target.session)?.sampling) {
      const schema = params.tools !== undefined || params.toolChoice !== undefined ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema;
      return this.requestClient(target, { method: "sampling/createMessage", params }, schema, signal);
    }
    if (model) {
      this.deps.logger.info({ server, model }, "answering sampling with gateway.sampling.model");
      return sampleWithModel(model, params as never, models, signal);
    }
    throw mcpError(ErrorCode.InvalidRequest, "The connected MCP client does not support sampling, and gateway.sampling.model is not configured");
  }

  async onElicitation(server: string, params: Record<string, unknown> & { mode?: string }, signal: AbortSignal) {
    const target = this.target(server, "elicitation/create");
    if ("refused" in target) throw target.refused;
    const supported = clientCapabilities(target.session)?.elicitation as { form?: object; url?: object } | undefined;
    const mode = params.mode ?? "form";
    const ok = supported !== undefined && (mode === "url" ? supported.url !== undefined : supported.form !== undefined || supported.url === undefined);
    if (!ok) throw mcpError(ErrorCode.InvalidParams, `The connected MCP client does not support ${mode}-mode elicitation`);
    return this.requestClient(target, { method: "elicitation/create", params }, ElicitResultSchema, signal);
  }

  async onListRoots(server: string, params: Record<string, unknown> | undefined, signal: AbortSignal) {
    const target = this.target(server, "roots/list");
    if ("refused" in target) throw target.refused;
    if (!target.session.relayRoots) {
      throw mcpError(ErrorCode.InvalidRequest, "The gateway does not forward the roots of MCP clients over HTTP (gateway.forwardRoots is off)");
    }
    if (!clientCapabilities(target.session)?.roots) throw mcpError(ErrorCode.MethodNotFound, "The connected MCP client does not support roots");
    return this.requestClient(target, { method: "roots/list", ...(params ? { params } : {}) }, ListRootsResultSchema, signal);
  }

  onElicitationComplete(server: string, params: Record<string, unknown>): void {
    const target = this.target(server, "notifications/elicitation/complete");
    if ("refused" in target) return;
    if (clientCapabilities(target.session)?.elicitation?.url) {
      void this.deps.notify(target.session, { method: "notifications/elicitation/complete", params: params as { elicitationId: string } }, target.related);
    }
  }

  onLog(server: string, params: LoggingMessageNotification["params"]): void {
    const target = this.target(server, "a log message");
    if ("refused" in target) {
      // Not tied to one client's request: the gateway's own log keeps it, no client gets it.
      this.deps.logger.debug({ server, level: params.level, logger: params.logger, data: params.data }, "upstream log message (not tied to a client request)");
      return;
    }
    if (!ignored(target.session, params.level)) void this.deps.notify(target.session, { method: "notifications/message", params }, target.related);
  }
}

function ignored(session: DownstreamSession, level: LoggingLevel): boolean {
  // A 2026-07-28 request without a logLevel asked for no log messages.
  if (session.logLevel === undefined) return session.kind === "modern";
  return LEVELS.indexOf(level) < LEVELS.indexOf(session.logLevel);
}
