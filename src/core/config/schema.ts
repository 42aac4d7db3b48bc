/**
 * The whole mcp.config.json in one zod schema. `mcpServers` is the Claude Desktop / Cursor
 * format unchanged, plus optional gateway fields. Every object is strict so a typo is an error
 * (with a "did you mean") instead of a silently ignored setting.
 */
import { z } from "zod";
import { aliasLoopFields, capabilitiesSchema, gatewayLoopFields, loopKeysAt, providerCapabilitiesSchema } from "./loop-schema.ts";

const toolFilter = z.strictObject({
  allow: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
});

const serverFields = {
  // stdio
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  // remote
  type: z.enum(["stdio", "http", "streamable-http", "sse"]).optional(),
  url: z.url().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  // gateway options
  disabled: z.boolean().optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** How long its start (spawn or connect, initialize, tools/list) may take; default gateway.serverStartTimeoutMs. */
  startTimeoutMs: z.number().int().positive().optional(),
  /**
   * Whether a second, short session learns which of its tools it lists without an MCP client's
   * capabilities (the tools models may be offered). Default true; false offers models every tool.
   */
  probeModelTools: z.boolean().optional(),
  prefix: z.string().regex(/^([a-zA-Z][a-zA-Z0-9_-]*)?$/, "a prefix starts with a letter and holds letters, digits, _ or -").optional(),
  tools: toolFilter.optional(),
  /** Its tool results larger than this many tokens are cut (default gateway.maxResultTokens). */
  maxResultTokens: z.number().int().positive().optional(),
  /**
   * The MCP protocol era spoken to it: "auto" probes with server/discover and falls back to
   * initialize (default for http servers), or a pinned revision (default for stdio servers:
   * "2025-11-25", since a stdio probe runs in a throwaway second process of the server).
   */
  era: z.enum(["auto", "2025-11-25", "2026-07-28"]).optional(),
};

export const serverSchema = z.strictObject(serverFields).superRefine((server, ctx) => {
  const remote = server.type === "http" || server.type === "streamable-http" || server.type === "sse";
  if (server.type === "sse" && server.era === "2026-07-28") {
    ctx.addIssue({ code: "custom", path: ["era"], message: 'the legacy SSE transport only speaks the 2025-11-25 era: use type "http" for a 2026-07-28 server' });
  }
  if (server.type === "stdio" && server.url !== undefined) {
    ctx.addIssue({ code: "custom", path: ["url"], message: 'a "stdio" server takes a command, not a url' });
    return;
  }
  if (remote || (server.url !== undefined && server.command === undefined)) {
    if (server.url === undefined) ctx.addIssue({ code: "custom", path: ["url"], message: `required: a "${server.type}" server needs a url` });
    if (server.command !== undefined) ctx.addIssue({ code: "custom", path: ["command"], message: "a remote server (url) cannot also have a command" });
    return;
  }
  if (server.command === undefined) {
    ctx.addIssue({ code: "custom", path: ["command"], message: 'required: a server needs a "command" (stdio) or a "url" (http/sse)' });
  }
  if (server.url !== undefined) ctx.addIssue({ code: "custom", path: ["url"], message: "a stdio server (command) cannot also have a url" });
});

const quirksOverrides = z.record(z.string(), z.unknown());

export const providerSchema = z.strictObject({
  /** The wire protocol: Chat Completions (`openai`), Anthropic Messages, the OpenAI Responses API, or Gemini's own API. */
  type: z.enum(["openai", "anthropic", "openai-responses", "gemini"]),
  baseURL: z.url().optional(),
  apiKey: z.string().optional(),
  /** Gemini: how `apiKey` is sent, `x-goog-api-key` (`api-key`, default) or `Authorization: Bearer` (`bearer`: Vertex AI access tokens). */
  auth: z.enum(["api-key", "bearer"]).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** A preset name, or switches that override the preset of the provider's type. */
  quirks: z.union([z.string(), quirksOverrides]).optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** Default max_tokens when a request gives none (Anthropic requires one). */
  maxTokens: z.number().int().positive().optional(),
  /** Models to list in /v1/models for this provider. */
  models: z.array(z.string()).optional(),
  /** What its models can do, by model-name pattern (`*` a wildcard). */
  capabilities: providerCapabilitiesSchema.optional(),
});

/** One deployment of an alias's model: where it runs, and its share of the requests. */
export const deploymentSchema = z.strictObject({
  model: z.string().min(1),
  weight: z.number().int().positive().optional(),
});

/** The alias fields that only make sense with `deployments`. */
const DEPLOYMENT_OPTIONS = ["strategy", "cooldownMs"] as const;

export const modelAliasSchema = z
  .strictObject({
    /** One `provider/model`; or, instead, several `deployments` of the same model. */
    model: z.string().min(1).optional(),
    deployments: z.array(deploymentSchema).min(1, "at least one deployment").optional(),
    /** How requests are spread over the deployments (default "weighted"). */
    strategy: z.enum(["weighted", "least-busy"]).optional(),
    /** How long a deployment that failed with retryable errors is skipped (default 30000; 0: never). */
    cooldownMs: z.number().int().min(0).optional(),
    fallbacks: z.array(z.string()).optional(),
    mcpServers: z.array(z.string()).optional(),
    system: z.string().optional(),
    temperature: z.number().optional(),
    maxTokens: z.number().int().positive().optional(),
    ...aliasLoopFields,
  })
  .superRefine((alias, ctx) => {
    if (alias.model !== undefined && alias.deployments !== undefined) {
      ctx.addIssue({ code: "custom", path: ["deployments"], message: 'give either "model" or "deployments", not both' });
    } else if (alias.model === undefined && alias.deployments === undefined) {
      ctx.addIssue({ code: "custom", path: ["model"], message: 'required: an alias needs "model" ("provider/model") or "deployments" ([{ "model": "provider/model", "weight": 1 }, …])' });
    }
    if (alias.deployments === undefined) {
      for (const option of DEPLOYMENT_OPTIONS) {
        if (alias[option] !== undefined) ctx.addIssue({ code: "custom", path: [option], message: `"${option}" applies to "deployments" only` });
      }
      return;
    }
    const seen = new Map<string, number>();
    alias.deployments.forEach((deployment, i) => {
      const first = seen.get(deployment.model);
      if (first === undefined) seen.set(deployment.model, i);
      else ctx.addIssue({ code: "custom", path: ["deployments", i, "model"], message: `"${deployment.model}" is listed twice (also deployments[${first}])` });
    });
  });

/** A gateway key with a name, limits and what it may use; a plain string is a key without them. */
export const apiKeySchema = z.strictObject({
  key: z.string().min(1, "an API key must not be empty"),
  /** Shown in logs and refusals (default: "key #<n>"). */
  name: z.string().min(1).optional(),
  /** Requests per minute, shared by every instance (through gateway.store). */
  rpm: z.number().int().positive().optional(),
  /** Tokens (input + output, as the providers report them) per minute. */
  tpm: z.number().int().positive().optional(),
  /** The models it may ask for: aliases or `provider/model`, `*` a wildcard (default: all). */
  models: z.array(z.string().min(1)).optional(),
  /** The MCP servers whose tools it may use (default: all). */
  mcpServers: z.array(z.string()).optional(),
  /** Calls that the tool policy says need approval run without asking, for this key. */
  autoApprove: z.boolean().optional(),
});

export const gatewaySchema = z.strictObject({
  host: z.string().optional(),
  port: z.number().int().min(0).max(65535).optional(),
  apiKeys: z.array(z.union([z.string(), apiKeySchema])).optional(),
  maxIterations: z.number().int().positive().optional(),
  toolTimeoutMs: z.number().int().positive().optional(),
  /** Default start timeout of an MCP server (its own `startTimeoutMs` wins). */
  serverStartTimeoutMs: z.number().int().positive().optional(),
  /** Request body size limit in bytes (413 beyond). */
  maxBodyBytes: z.number().int().positive().optional(),
  /** Requests handled at once; more are refused with 429 and retry-after. */
  maxConcurrentRequests: z.number().int().positive().optional(),
  /** Messages per chat request. */
  maxMessages: z.number().int().positive().optional(),
  maxJsonDepth: z.number().int().positive().optional(),
  maxArrayLength: z.number().int().positive().optional(),
  /** Deadline of one chat request, all turns and tool calls included. */
  requestTimeoutMs: z.number().int().positive().optional(),
  /** Retries of failed upstream calls (before anything was streamed), per provider. */
  retries: z
    .strictObject({
      attempts: z.number().int().min(1).max(10).optional(),
      initialDelayMs: z.number().int().min(0).optional(),
      maxDelayMs: z.number().int().min(0).optional(),
      budgetMs: z.number().int().min(0).optional(),
    })
    .optional(),
  /** The `chat` agent tool on the MCP surface. */
  chatTool: z.boolean().optional(),
  sampling: z.strictObject({ model: z.string() }).optional(),
  /** Extra Host header values accepted on /mcp (loopback is always accepted; "*" accepts any). */
  allowedHosts: z.array(z.string().min(1)).optional(),
  /** Extra Origin header values accepted on /mcp (loopback origins always are; "*" accepts any). */
  allowedOrigins: z.array(z.string().min(1)).optional(),
  /** Relay the roots of /mcp HTTP sessions to upstream servers (stdio always does). */
  forwardRoots: z.boolean().optional(),
  /** Open /mcp sessions at most; more initialize requests get 503 with retry-after. */
  maxMcpSessions: z.number().int().positive().optional(),
  /** Browser apps on these origins may call /v1 (CORS); off by default. */
  cors: z.strictObject({ allowedOrigins: z.array(z.string().min(1)).min(1) }).optional(),
  /** Prometheus metrics (/metrics), the web view (/ui) with its ring of recent requests, and content on trace spans. */
  observability: z
    .strictObject({
      metrics: z.boolean().optional(),
      ui: z.boolean().optional(),
      recentRequests: z.number().int().min(0).max(100_000).optional(),
      captureContent: z.boolean().optional(),
    })
    .optional(),
  /** Where state between requests lives: this process ("memory") or Redis, shared by every instance. */
  store: z
    .union([
      z.literal("memory"),
      z.strictObject({ redis: z.strictObject({ url: z.string().regex(/^rediss?:\/\//, "a redis:// or rediss:// URL"), keyPrefix: z.string().optional() }) }),
    ])
    .optional(),
  ...gatewayLoopFields,
});

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "server names hold letters, digits, _ . or -"), serverSchema).default({}),
  providers: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "provider names hold letters, digits, _ . or -"), providerSchema).default({}),
  models: z.record(z.string(), modelAliasSchema).default({}),
  gateway: gatewaySchema.default({}),
});

export type RawServerConfig = z.infer<typeof serverSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelAliasConfig = z.infer<typeof modelAliasSchema>;
export type DeploymentConfig = z.infer<typeof deploymentSchema>;
export type GatewaySettings = z.infer<typeof gatewaySchema>;
export type ApiKeyConfig = z.infer<typeof apiKeySchema>;
export type RawConfig = z.infer<typeof configSchema>;

/** Known keys of the object at a config path, for "did you mean" on unknown keys. */
export function knownKeysAt(path: readonly PropertyKey[]): readonly string[] {
  const [section, , ...rest] = path;
  if (path.length === 0) return Object.keys(configSchema.shape);
  if (section === "gateway" && path.length === 1) return Object.keys(gatewaySchema.shape);
  if (section === "gateway" && path[1] === "apiKeys" && path.length === 3) return Object.keys(apiKeySchema.shape);
  if (section === "gateway" && path[1] === "sampling") return ["model"];
  if (section === "gateway" && path[1] === "retries") return ["attempts", "initialDelayMs", "maxDelayMs", "budgetMs"];
  if (section === "gateway" && path[1] === "cors") return ["allowedOrigins"];
  if (section === "gateway" && path[1] === "observability") return ["metrics", "ui", "recentRequests", "captureContent"];
  if (section === "gateway" && path[1] === "store") return path[2] === "redis" ? ["url", "keyPrefix"] : ["redis"];
  if (section === "gateway" && path.length >= 2 && loopKeysAt(path.slice(1))) return loopKeysAt(path.slice(1))!;
  if (section === "models" && path.length >= 3 && loopKeysAt(rest)) return loopKeysAt(rest)!;
  if (section === "providers" && rest[0] === "capabilities" && path.length === 4) return Object.keys(capabilitiesSchema.shape);
  if (path.length === 2 && section === "mcpServers") return Object.keys(serverFields);
  if (section === "mcpServers" && rest[0] === "tools") return ["allow", "deny"];
  if (path.length === 2 && section === "providers") return Object.keys(providerSchema.shape);
  if (path.length === 2 && section === "models") return Object.keys(modelAliasSchema.shape);
  if (section === "models" && rest[0] === "deployments") return Object.keys(deploymentSchema.shape);
  return [];
}
