/**
 * `POST|GET|DELETE /mcp`: the MCP Streamable HTTP transport on the gateway's HTTP port.
 *
 * - One SDK Server + transport per session (Mcp-Session-Id); an `initialize` without a session
 *   opens one. A session ends on DELETE, when the gateway stops, or after `idleMs` without a
 *   request and without an open stream (clients that vanish without DELETE do not leak).
 * - Server-to-client messages stream as SSE (on the request's stream, or the GET stream), every
 *   event kept in a bounded per-session store so a client resumes with `Last-Event-ID`.
 * - DNS-rebinding protection: the Host header must name a loopback host (localhost, 127.0.0.1,
 *   [::1]) or one in `gateway.allowedHosts`, and an Origin header, when sent, a loopback origin
 *   or one in `gateway.allowedOrigins` ("*" in either list accepts anything). Otherwise 403.
 * - With `gateway.apiKeys` set, `Authorization: Bearer <key>` is required (401 with
 *   `WWW-Authenticate: Bearer` otherwise), and a session belongs to the key that opened it: its
 *   id presented with another key is an unknown session (404).
 * - At most `gateway.maxMcpSessions` sessions: an initialize beyond it (after idle sessions were
 *   swept) gets 503 with retry-after. Requests count against `gateway.maxConcurrentRequests`
 *   (429 beyond), an open SSE stream for as long as it is open.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Hono, MiddlewareHandler } from "hono";
import type { GatewayConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import { apiKeyAuth } from "../http/auth.ts";
import { gatewayConcurrencyCap } from "../http/limits.ts";
import { policyOf, presentedKey, type KeyPolicy } from "../shared/keys.ts";
import { MemoryEventStore } from "./event-store.ts";
import type { McpHub } from "./hub.ts";
import type { DownstreamSession } from "./types.ts";

export interface McpHttpOptions {
  hub: McpHub;
  config: GatewayConfig;
  logger: Logger;
  /** A session with no request and no open stream for this long is closed (default 30 min). */
  idleMs?: number;
  /** Bound on the events kept per session for resumption (default 1000). */
  maxStoredEvents?: number;
  /** Largest sessionless POST (an initialize) read, in bytes (default 1 MiB). */
  maxInitializeBytes?: number;
  /** The clock idle times are measured with (tests). */
  now?: () => number;
}

type RequestId = string | number;

/** The JSON-RPC requests of one POST still owed an answer; `release` ends the POST's in-flight count. */
interface PostInFlight {
  pending: Set<RequestId>;
  release: () => void;
}

interface HttpSession {
  session: DownstreamSession;
  /** SHA-256 of the API key that opened the session (when gateway.apiKeys is set). */
  key: Buffer | undefined;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Requests whose response is still being written (open SSE streams included). */
  open: number;
  lastSeen: number;
  /** Resolved (and cleared) whenever `open` drops to 0. */
  idleWaiters: (() => void)[];
  /** The POST each request still in progress came in. */
  requests: Map<RequestId, PostInFlight>;
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/* ---------------- DNS-rebinding protection ---------------- */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** The host name of a Host header value (`example.com:4000` -> `example.com`, `[::1]:80` -> `[::1]`). */
export function hostName(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1) || value;
  const colon = value.indexOf(":");
  return colon === -1 || value.indexOf(":", colon + 1) !== -1 ? value : value.slice(0, colon);
}

export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes("*")) return true;
  if (!host) return false;
  const name = hostName(host);
  if (LOOPBACK_HOSTS.has(name)) return true;
  const list = allowed.map((h) => h.trim().toLowerCase());
  return list.includes(host.trim().toLowerCase()) || list.includes(name);
}

export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || allowed.includes("*")) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) return true;
  const normalized = url.origin.toLowerCase();
  return allowed.some((o) => o.trim().replace(/\/+$/, "").toLowerCase() === normalized);
}

export function rebindingGuard(config: GatewayConfig): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!hostAllowed(host, config.gateway.allowedHosts)) {
      return jsonRpcError(403, -32000, `Forbidden: Host "${host ?? ""}" is not allowed (add it to gateway.allowedHosts)`);
    }
    const origin = c.req.header("origin");
    if (!originAllowed(origin, config.gateway.allowedOrigins)) {
      return jsonRpcError(403, -32000, `Forbidden: Origin "${origin}" is not allowed (add it to gateway.allowedOrigins)`);
    }
    return next();
  };
}

/* ---------------- auth ---------------- */

/**
 * The gateway's bearer auth, with the `WWW-Authenticate: Bearer` challenge a 401 from an MCP
 * endpoint carries (RFC 6750; MCP clients look for it).
 */
export function mcpBearerAuth(keys: readonly string[]): MiddlewareHandler {
  const auth = apiKeyAuth(keys);
  return async (c, next) => {
    const response = await auth(c, next);
    if (response instanceof Response && response.status === 401) {
      const presented = /^Bearer\s+\S/i.test(c.req.header("authorization") ?? "");
      response.headers.set("www-authenticate", `Bearer realm="mcp-gateway"${presented ? ', error="invalid_token"' : ""}`);
    }
    return response;
  };
}

/** SHA-256 of the bearer token of a request. */
function keyDigest(request: Request): Buffer {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  return createHash("sha256").update(match ? match[1]!.trim() : "").digest();
}

/* ---------------- the endpoint ---------------- */

/** Reads at most `max` bytes of a body; undefined when it is larger. */
async function readCapped(request: Request, max: number): Promise<string | undefined> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `body` with `done` called once when it has been read to the end, failed, or was cancelled. */
function onFinished(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  const end = () => {
    if (finished) return;
    finished = true;
    done();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: isDone } = await reader.read();
        if (isDone) {
          end();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}

function containsInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
}

/** The messages of a POST body (one, or a batch). */
function messagesOf(body: unknown): Record<string, unknown>[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is Record<string, unknown> => typeof m === "object" && m !== null);
}

const isRequestId = (id: unknown): id is RequestId => typeof id === "string" || typeof id === "number";

export class McpHttpEndpoint {
  private readonly sessions = new Map<string, HttpSession>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly sweepEveryMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  /** POSTs whose response is still being written, over all sessions: each owes its client an answer. */
  private posts = 0;
  private readonly postsDone: (() => void)[] = [];

  constructor(private readonly options: McpHttpOptions) {
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.now = options.now ?? Date.now;
    this.sweepEveryMs = Math.max(1_000, Math.min(60_000, this.idleMs / 2));
    this.sweeper = setInterval(() => void this.sweep(), this.sweepEveryMs);
    this.sweeper.unref();
  }

  mount(app: Hono): void {
    const gateway = this.options.config.gateway;
    app.all("/mcp", rebindingGuard(this.options.config), mcpBearerAuth(gateway.apiKeys), gatewayConcurrencyCap(this.options.config), (c) => this.handle(c.req.raw));
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  private async handle(request: Request): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const entry = this.sessions.get(id);
      if (!entry) return jsonRpcError(404, -32001, "Session not found");
      // Another key's session is, for this caller, a session that does not exist.
      if (entry.key && !timingSafeEqual(entry.key, keyDigest(request))) {
        this.options.logger.warn({ session: id }, "mcp session id presented with another API key");
        return jsonRpcError(404, -32001, "Session not found");
      }
      return this.serve(entry, request);
    }
    if (request.method !== "POST") {
      if (request.method === "GET" || request.method === "DELETE") return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return jsonRpcError(405, -32000, "Method not allowed.", { allow: "GET, POST, DELETE" });
    }
    const text = await readCapped(request, Math.min(this.options.maxInitializeBytes ?? 1024 * 1024, this.options.config.gateway.maxBodyBytes));
    if (text === undefined) return jsonRpcError(413, -32000, "Payload too large");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
    }
    if (!containsInitialize(body)) return jsonRpcError(400, -32000, "Bad Request: No valid session ID provided");
    const max = this.options.config.gateway.maxMcpSessions;
    if (this.sessions.size >= max) await this.sweep();
    // No await between this check and open() registering the session: the bound holds.
    if (this.sessions.size >= max) {
      this.options.logger.warn({ sessions: this.sessions.size, max }, "mcp session limit reached: initialize refused");
      return jsonRpcError(503, -32000, `The gateway has reached its limit of ${max} MCP sessions (gateway.maxMcpSessions); close unused sessions or retry later`, {
        "retry-after": String(Math.ceil(this.sweepEveryMs / 1000)),
      });
    }
    const entry = this.open(this.options.config.gateway.apiKeys.length > 0 ? keyDigest(request) : undefined, policyOf(this.options.config, presentedKey(request)));
    await entry.session.server.connect(entry.transport);
    this.options.logger.debug({ session: entry.session.id }, "mcp session opened");
    const response = await this.serve(entry, request, body);
    // An initialize the transport refused leaves a session nobody can use.
    if (entry.transport.sessionId === undefined) await this.closeSession(entry);
    return response;
  }

  /** Registers a new session (synchronously: see the session bound); the caller connects it. */
  private open(key: Buffer | undefined, policy?: KeyPolicy): HttpSession {
    const id = randomUUID();
    // The session sees and may use only what its key may (gateway.apiKeys entries with mcpServers/models).
    const session = this.options.hub.createSession(id, { kind: "http", key: policy });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: new MemoryEventStore(this.options.maxStoredEvents ?? 1000),
      maxRequestBodySize: this.options.config.gateway.maxBodyBytes,
    });
    const entry: HttpSession = { session, key, transport, open: 0, lastSeen: this.now(), idleWaiters: [], requests: new Map() };
    this.sessions.set(id, entry);
    const onServerClose = session.server.onclose;
    session.server.onclose = () => {
      onServerClose?.();
      if (this.sessions.get(id) === entry) this.sessions.delete(id);
      this.options.logger.debug({ session: id }, "mcp session closed");
    };
    return entry;
  }

  private async serve(entry: HttpSession, request: Request, parsedBody?: unknown): Promise<Response> {
    const post = request.method === "POST";
    if (post && parsedBody === undefined) {
      // Read here rather than by the transport: which requests a POST carries, and which it
      // cancels, decide what is in flight.
      const text = await readCapped(request, this.options.config.gateway.maxBodyBytes);
      if (text === undefined) return jsonRpcError(413, -32000, "Payload too large");
      try {
        parsedBody = JSON.parse(text);
      } catch {
        return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
      }
    }
    entry.lastSeen = this.now();
    entry.open++;
    const messages = post ? messagesOf(parsedBody) : [];
    for (const message of messages) if (message.method === "notifications/cancelled") this.cancelled(entry, (message.params as { requestId?: unknown } | undefined)?.requestId);
    const ids = messages.filter((m) => typeof m.method === "string" && isRequestId(m.id)).map((m) => m.id as RequestId);
    // A POST is in flight until its answers are written or every request in it was cancelled.
    let inFlight = post;
    if (post) this.posts++;
    const release = () => {
      if (!inFlight) return;
      inFlight = false;
      if (--this.posts === 0) for (const resolve of this.postsDone.splice(0)) resolve();
    };
    const tracked: PostInFlight = { pending: new Set(ids), release };
    for (const id of ids) entry.requests.set(id, tracked);
    const finish = () => {
      for (const id of ids) if (entry.requests.get(id) === tracked) entry.requests.delete(id);
      release();
      this.finish(entry);
    };
    let response: Response;
    try {
      response = await entry.transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
    } catch (error) {
      finish();
      throw error;
    }
    if (!response.body) {
      finish();
      return response;
    }
    return new Response(onFinished(response.body, finish), { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  private finish(entry: HttpSession): void {
    entry.open--;
    entry.lastSeen = this.now();
    if (entry.open <= 0) for (const resolve of entry.idleWaiters.splice(0)) resolve();
  }

  /**
   * The client cancelled a request (notifications/cancelled): the SDK server stops its handler
   * and, as the protocol says, sends no answer, so its response stream stays open until the
   * session ends. It is no longer in flight: shutdown does not wait for it.
   */
  private cancelled(entry: HttpSession, id: unknown): void {
    if (!isRequestId(id)) return;
    const post = entry.requests.get(id);
    if (!post) return;
    entry.requests.delete(id);
    post.pending.delete(id);
    if (post.pending.size === 0) post.release();
  }

  /** Resolves once no POST response is in progress, or after `ms`. */
  private postsFinished(ms: number): Promise<void> {
    if (this.posts === 0 || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.postsDone.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Resolves once the session has no response in progress (no open stream); diagnostics and tests. */
  whenIdle(sessionId: string): Promise<void> {
    const entry = this.sessions.get(sessionId);
    if (!entry || entry.open <= 0) return Promise.resolve();
    return new Promise((resolve) => entry.idleWaiters.push(resolve));
  }

  private async closeSession(entry: HttpSession): Promise<void> {
    if (this.sessions.get(entry.session.id) === entry) this.sessions.delete(entry.session.id);
    await entry.transport.close().catch(() => undefined);
    await entry.session.server.close().catch(() => undefined);
  }

  /** Closes sessions idle past `idleMs` with no open stream (runs on a timer; `now` for tests). */
  async sweep(now = this.now()): Promise<void> {
    const idle = [...this.sessions.values()].filter((entry) => entry.open <= 0 && now - entry.lastSeen > this.idleMs);
    for (const entry of idle) this.options.logger.info({ session: entry.session.id }, "closing idle mcp session");
    await Promise.all(idle.map((entry) => this.closeSession(entry)));
  }

  /**
   * Closes every session (open streams end) and stops the sweeper. With `graceMs`, the requests
   * in progress (tool calls, the `chat` tool) first get up to that long to send their answers;
   * GET streams, which never finish on their own, end only then.
   */
  async close(graceMs = 0): Promise<void> {
    clearInterval(this.sweeper);
    await this.postsFinished(graceMs);
    await Promise.all([...this.sessions.values()].map((entry) => this.closeSession(entry)));
  }
}
