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
 * - Several instances (a shared `gateway.store`): each session's record — what its initialize
 *   said (protocol version, client info and capabilities), its log level and subscriptions, the
 *   digest of its key — is kept in the store (table `mcp-sessions`, the idle timeout as its time
 *   to live, renewed as the session is used). A request with an unknown Mcp-Session-Id whose
 *   record exists re-creates the session on this instance: the initialize is replayed to a new
 *   SDK server through the transport, as the client sent it, then the log level and
 *   subscriptions take effect (upstream too). The session started on another instance (or on
 *   this one before a restart) goes on here. Resuming a stream with Last-Event-ID works only on
 *   the instance that sent it (its events are kept in that process).
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import {
  isInitializeRequest,
  isLegacyRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type ClientCapabilities,
  type Implementation,
  type InitializeRequest,
  type LoggingLevel,
} from "@modelcontextprotocol/server";
import type { Hono, MiddlewareHandler } from "hono";
import { isJsonObject } from "../../core/json-object.ts";
import type { GatewayConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import { apiKeyAuth } from "../http/auth.ts";
import { answerWatch, type AnswerWatch } from "../http/client-gone.ts";
import { directEventStreams } from "../http/direct-sse.ts";
import { gatewayConcurrencyCap } from "../http/limits.ts";
import { policyOf, presentedKey, type KeyPolicy } from "../shared/keys.ts";
import { MemoryEventStore } from "./event-store.ts";
import { whenBodyDone } from "./stream-end.ts";
import type { McpHub } from "./hub.ts";
import { ModernMcpEndpoint } from "./modern-http.ts";
import type { DownstreamSession } from "./types.ts";
import type { StateBackend, StateStore } from "../state/store.ts";

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
  /**
   * The state store: when it is shared (Redis), every session's record is kept in it, and a
   * session started on another instance is re-created here when its next request arrives.
   */
  store?: StateBackend;
}

/** What a session needs to be re-created on another instance (the `mcp-sessions` table). */
export interface McpSessionRecord {
  /** Hex SHA-256 of the API key that opened it (when gateway.apiKeys is set). */
  key?: string;
  /** Negotiated by its initialize. */
  protocolVersion: string;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  logLevel?: LoggingLevel;
  subscriptions: string[];
}

/** A session in use writes its record again at least this often (and after a failed write, at once). */
const RENEW_RECORD_MS = 60_000;

/** Makes the answer refusing a request (one per request: several may wait for the same refusal). */
type Refusal = () => Response;

/** Where the replayed requests of a restored session claim to come from (never reaches the network). */
const RESTORE_URL = "http://mcp-gateway.internal/mcp";

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
  /** Its record (when the store is shared), when it was last written, and whether the last write failed. */
  record?: McpSessionRecord;
  savedAt: number;
  unsaved: boolean;
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
  // A declared length within the limit (the HTTP parser holds the body to it): read whole through
  // @hono/node-server's fast path, which reads the IncomingMessage directly. Touching `body` would
  // make it a web stream (Readable.toWeb) for every POST.
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isInteger(declared) && declared >= 0 && declared <= max) {
    const text = await request.text();
    return Buffer.byteLength(text) > max ? undefined : text;
  }
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
  /** Session records in the shared store (none with the memory store: one process has them all). */
  private readonly records: StateStore<McpSessionRecord> | undefined;
  /** Sessions being re-created from their records (concurrent requests of one session wait for one). */
  private readonly restoring = new Map<string, Promise<HttpSession | Refusal | undefined>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly sweepEveryMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  /** 2026-07-28 requests: stateless, served by the SDK's per-request handler. */
  private readonly modern: ModernMcpEndpoint;
  /** POSTs whose response is still being written, over all sessions: each owes its client an answer. */
  private posts = 0;
  private readonly postsDone: (() => void)[] = [];

  constructor(private readonly options: McpHttpOptions) {
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.now = options.now ?? Date.now;
    this.modern = new ModernMcpEndpoint({ hub: options.hub, logger: options.logger });
    this.sweepEveryMs = Math.max(1_000, Math.min(60_000, this.idleMs / 2));
    this.sweeper = setInterval(() => void this.sweep(), this.sweepEveryMs);
    this.sweeper.unref();
    const store = options.store;
    // A record outlives its session's idle timeout by the renewal interval: it is written at most
    // that long before the session's last request.
    if (store && store.kind !== "memory") this.records = store.table<McpSessionRecord>("mcp-sessions", { ttlMs: this.idleMs + RENEW_RECORD_MS, maxEntryBytes: 256 * 1024 });
  }

  mount(app: Hono): void {
    const gateway = this.options.config.gateway;
    app.all("/mcp", rebindingGuard(this.options.config), mcpBearerAuth(gateway.apiKeys), gatewayConcurrencyCap(this.options.config), (c) => {
      // The SDK's event streams written by our server, without @hono/node-server's wait (direct-web-stream.ts).
      directEventStreams(c);
      return this.handle(c.req.raw, answerWatch(c));
    });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** `watch`: where the end of the answer is seen on our Node server (stream-end.ts), if there. */
  private async handle(request: Request, watch?: AnswerWatch): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      let entry = this.sessions.get(id);
      if (!entry && this.records) {
        // Started on another instance (or here, before a restart): re-created from its record.
        const restored = await this.restore(id, request);
        if (typeof restored === "function") return restored();
        entry = restored;
      }
      if (!entry) return jsonRpcError(404, -32001, "Session not found");
      // Another key's session is, for this caller, a session that does not exist.
      if (entry.key && !timingSafeEqual(entry.key, keyDigest(request))) {
        this.options.logger.warn({ session: id }, "mcp session id presented with another API key");
        return jsonRpcError(404, -32001, "Session not found");
      }
      return this.serve(entry, request, undefined, watch);
    }
    if (request.method !== "POST") {
      if (request.method === "GET" || request.method === "DELETE") return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return jsonRpcError(405, -32000, "Method not allowed.", { allow: "GET, POST, DELETE" });
    }
    const text = await readCapped(request, this.options.config.gateway.maxBodyBytes);
    if (text === undefined) return jsonRpcError(413, -32000, "Payload too large");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
    }
    // A 2026-07-28 request (the SDK's own classification): served statelessly.
    if (!(await isLegacyRequest(request, body))) return this.serveModern(request, body, watch);
    if (Buffer.byteLength(text) > (this.options.maxInitializeBytes ?? 1024 * 1024)) return jsonRpcError(413, -32000, "Payload too large");
    if (!containsInitialize(body)) return jsonRpcError(400, -32000, "Bad Request: No valid session ID provided");
    const full = await this.atSessionLimit("initialize refused");
    if (full) return full();
    // No await between the check and open() registering the session: the bound holds.
    const entry = this.open(this.options.config.gateway.apiKeys.length > 0 ? keyDigest(request) : undefined, policyOf(this.options.config, presentedKey(request)));
    await entry.session.server.connect(entry.transport);
    this.options.logger.debug({ session: entry.session.id }, "mcp session opened");
    const response = await this.serve(entry, request, body, watch);
    // An initialize the transport refused leaves a session nobody can use.
    if (entry.transport.sessionId === undefined) {
      await this.closeSession(entry);
      return response;
    }
    if (this.records) {
      // Kept before the client learns the session id: its next request may land anywhere.
      const init = messagesOf(body).find((m) => isInitializeRequest(m)) as InitializeRequest | undefined;
      if (init) {
        const requested = init.params.protocolVersion;
        entry.record = {
          ...(entry.key ? { key: entry.key.toString("hex") } : {}),
          protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
          clientInfo: init.params.clientInfo,
          capabilities: init.params.capabilities,
          subscriptions: [],
        };
        await this.save(entry);
      }
    }
    return response;
  }

  /**
   * One 2026-07-28 request. It is in flight (shutdown waits for it) until its answer is written;
   * a `subscriptions/listen` stream, which never ends on its own, is not (like a GET stream).
   */
  private async serveModern(request: Request, body: unknown, watch: AnswerWatch | undefined): Promise<Response> {
    const keyed = this.options.config.gateway.apiKeys.length > 0;
    const caller = { key: policyOf(this.options.config, presentedKey(request)), ...(keyed ? { owner: keyDigest(request).toString("hex") } : {}) };
    // Any JSON may arrive (`null` too): what is not a request is the SDK's to refuse (-32600).
    const listen = isJsonObject(body) && body.method === "subscriptions/listen";
    if (listen) return this.modern.fetch(request, body, caller, watch);
    this.posts++;
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      if (--this.posts === 0) for (const resolve of this.postsDone.splice(0)) resolve();
    };
    let response: Response;
    try {
      response = await this.modern.fetch(request, body, caller, watch);
    } catch (error) {
      release();
      throw error;
    }
    return whenBodyDone(response, release, watch);
  }

  /** A 503 with retry-after when the session limit is reached (after idle sessions were swept); else undefined. */
  private async atSessionLimit(what: string): Promise<Refusal | undefined> {
    const max = this.options.config.gateway.maxMcpSessions;
    if (this.sessions.size >= max) await this.sweep();
    if (this.sessions.size < max) return undefined;
    this.options.logger.warn({ sessions: this.sessions.size, max }, `mcp session limit reached: ${what}`);
    return () =>
      jsonRpcError(503, -32000, `The gateway has reached its limit of ${max} MCP sessions (gateway.maxMcpSessions); close unused sessions or retry later`, {
        "retry-after": String(Math.ceil(this.sweepEveryMs / 1000)),
      });
  }

  /** Writes the session's record (log level and subscriptions as they are now); a failure is logged, never thrown. */
  private async save(entry: HttpSession): Promise<void> {
    const record = entry.record;
    if (!this.records || !record) return;
    entry.savedAt = this.now();
    const current: McpSessionRecord = {
      ...record,
      ...(entry.session.logLevel === undefined ? {} : { logLevel: entry.session.logLevel }),
      subscriptions: [...entry.session.subscriptions],
    };
    try {
      await this.records.set(entry.session.id, current);
      entry.record = current;
      entry.unsaved = false;
    } catch (error) {
      entry.unsaved = true;
      this.options.logger.warn({ session: entry.session.id, err: (error as Error).message }, "could not keep the mcp session's record (state store unavailable): until it is kept, the session works on this instance only");
    }
  }

  /** Re-creates a session from its record, once however many of its requests arrive together. */
  private restore(id: string, request: Request): Promise<HttpSession | Refusal | undefined> {
    let restoring = this.restoring.get(id);
    if (!restoring) {
      restoring = this.restoreFromRecord(id, request).finally(() => this.restoring.delete(id));
      this.restoring.set(id, restoring);
    }
    return restoring;
  }

  private async restoreFromRecord(id: string, request: Request): Promise<HttpSession | Refusal | undefined> {
    let record: McpSessionRecord | undefined;
    try {
      record = await this.records!.get(id);
    } catch (error) {
      // The session may well exist: "not found" would make the client start over for nothing.
      this.options.logger.warn({ session: id, err: (error as Error).message }, "could not read an mcp session's record (state store unavailable)");
      return () => jsonRpcError(503, -32000, "The gateway's state store is unavailable, so this MCP session cannot be resumed here; try again shortly", { "retry-after": "1" });
    }
    if (!record) return undefined;
    const key = this.options.config.gateway.apiKeys.length > 0 ? keyDigest(request) : undefined;
    const recordKey = record.key === undefined ? undefined : Buffer.from(record.key, "hex");
    if (recordKey ? !key || recordKey.length !== key.length || !timingSafeEqual(recordKey, key) : key !== undefined) {
      this.options.logger.warn({ session: id }, "mcp session id presented with another API key");
      return undefined;
    }
    const full = await this.atSessionLimit("session not resumed");
    if (full) return full;
    const entry = this.open(key, policyOf(this.options.config, presentedKey(request)), id);
    entry.record = record;
    await entry.session.server.connect(entry.transport);
    try {
      await this.replayInitialize(entry, record);
      await this.options.hub.restoreSession(entry.session, { logLevel: record.logLevel, subscriptions: record.subscriptions });
    } catch (error) {
      this.options.logger.warn({ session: id, err: String(error) }, "could not re-create an mcp session from its record");
      await this.closeSession(entry);
      return undefined;
    }
    // Used here from now on: its time to live starts again.
    await this.save(entry);
    this.options.logger.info({ session: id, client: record.clientInfo.name }, "mcp session resumed on this instance from its record");
    return entry;
  }

  /**
   * Plays the session's opening again to its new SDK server, through its transport, as the
   * client sent it: the initialize (the transport takes the session id, the server the client's
   * info and capabilities) and notifications/initialized. Nothing is sent to the client.
   */
  private async replayInitialize(entry: HttpSession, record: McpSessionRecord): Promise<void> {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const initialize = {
      jsonrpc: "2.0" as const,
      id: `mcp-gateway-restore-${randomUUID()}`,
      method: "initialize" as const,
      params: { protocolVersion: record.protocolVersion, capabilities: record.capabilities, clientInfo: record.clientInfo },
    };
    const answer = await entry.transport.handleRequest(new Request(RESTORE_URL, { method: "POST", headers }), { parsedBody: initialize });
    const text = await answer.text();
    if (!answer.ok || entry.transport.sessionId !== entry.session.id || !text.includes('"result"')) throw new Error(`the replayed initialize failed (${answer.status}): ${text.slice(0, 200)}`);
    const initialized = { jsonrpc: "2.0" as const, method: "notifications/initialized" as const };
    const notified = await entry.transport.handleRequest(
      new Request(RESTORE_URL, { method: "POST", headers: { ...headers, "mcp-session-id": entry.session.id, "mcp-protocol-version": record.protocolVersion } }),
      { parsedBody: initialized },
    );
    if (notified.status !== 202) throw new Error(`the replayed notifications/initialized failed (${notified.status})`);
  }

  /** Registers a new session (synchronously: see the session bound); the caller connects it. */
  private open(key: Buffer | undefined, policy?: KeyPolicy, id: string = randomUUID()): HttpSession {
    // The session sees and may use only what its key may (gateway.apiKeys entries with mcpServers/models).
    const session = this.options.hub.createSession(id, { kind: "http", key: policy });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: new MemoryEventStore(this.options.maxStoredEvents ?? 1000),
      maxRequestBodySize: this.options.config.gateway.maxBodyBytes,
    });
    const entry: HttpSession = { session, key, transport, open: 0, lastSeen: this.now(), idleWaiters: [], requests: new Map(), savedAt: 0, unsaved: false };
    this.sessions.set(id, entry);
    // A new log level or subscription is in the record before the client hears it was taken.
    if (this.records) session.onStateChange = () => this.save(entry);
    const onServerClose = session.server.onclose;
    session.server.onclose = () => {
      onServerClose?.();
      if (this.sessions.get(id) === entry) this.sessions.delete(id);
      this.options.logger.debug({ session: id }, "mcp session closed");
    };
    return entry;
  }

  private async serve(entry: HttpSession, request: Request, parsedBody: unknown, watch: AnswerWatch | undefined): Promise<Response> {
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
    if (entry.record) {
      // A record the store could not take (it was down) is written before this request is
      // handled: the next one may land elsewhere. A session in use renews its record now and
      // then (it lives as long as an idle session; a Redis restarted empty has it back soon).
      if (entry.unsaved) await this.save(entry);
      else if (entry.lastSeen - entry.savedAt > Math.min(this.idleMs / 4, RENEW_RECORD_MS)) void this.save(entry);
    }
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
    // The client ended the session: no instance may resume it. (Closing it for being idle, or
    // on shutdown, keeps the record: the client may go on elsewhere.)
    if (request.method === "DELETE" && response.ok && this.records) {
      await this.records.delete(entry.session.id).catch((error: unknown) =>
        this.options.logger.warn({ session: entry.session.id, err: (error as Error).message }, "could not delete an ended mcp session's record (state store unavailable); it expires after the idle timeout"),
      );
    }
    return whenBodyDone(response, finish, watch);
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
    await Promise.all([this.modern.close(), ...[...this.sessions.values()].map((entry) => this.closeSession(entry))]);
  }
}
