import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { describeIssues, type FieldProblem } from "../zod-issues.ts";
import { interpolateEnv, type MissingVariable } from "./interpolate.ts";
import { configSchema, knownKeysAt, type RawConfig, type RawServerConfig } from "./schema.ts";
import { DEFAULTS, type GatewayConfig, type KeyPolicy, type ServerConfig } from "./types.ts";

/** A config that cannot be used; every problem names the JSON path of the bad field. */
export class ConfigError extends Error {
  readonly problems: FieldProblem[];
  constructor(source: string, problems: FieldProblem[]) {
    super(`invalid config ${source}:\n${problems.map((p) => `  - ${p.path || "(root)"}: ${p.message}`).join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** `--config`, else MCP_GATEWAY_CONFIG, else ./mcp.config.json. */
export function resolveConfigPath(flag: string | undefined, env: Record<string, string | undefined>): string {
  // An empty MCP_GATEWAY_CONFIG (`export MCP_GATEWAY_CONFIG=`) means unset, not the current folder.
  return resolve(flag ?? (env.MCP_GATEWAY_CONFIG || undefined) ?? "mcp.config.json");
}

export async function loadConfigFile(path: string, env: Record<string, string | undefined> = process.env): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(path, [{ path: "", message: `cannot read the file (${(error as Error).message})` }]);
  }
  return { ...parseConfigText(text, env, path), path };
}

/** Parses JSON (comments and trailing commas allowed, as in the docs' examples). */
export function parseConfigText(text: string, env: Record<string, string | undefined>, source = "(inline)"): GatewayConfig {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const line = text.slice(0, first.offset).split("\n").length;
    throw new ConfigError(source, [{ path: "", message: `not valid JSON: ${printParseErrorCode(first.error)} at line ${line}` }]);
  }
  return resolveConfig(tree ? nodeValue(tree) : undefined, env, source);
}

/** The JSON value of a parse tree; objects via fromEntries so "__proto__" stays a plain key. */
function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object":
      return Object.fromEntries(
        (node.children ?? []).map((property) => [property.children![0]!.value as string, nodeValue(property.children![1]!)]),
      );
    case "array":
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

export function resolveConfig(json: unknown, env: Record<string, string | undefined>, source = "(inline)"): GatewayConfig {
  const missing: MissingVariable[] = [];
  const substituted = new Set<string>();
  const interpolated = interpolateEnv(json, env, missing, [], substituted);
  let parsed = configSchema.safeParse(interpolated);
  if (!parsed.success) {
    // A field of a provider or server that an unset variable broke ("${BASE}/v1" became "/v1",
    // not a URL) makes that entry unavailable, naming the variable, as any unset variable in it
    // does; it is not a config error. The field gets a stand-in the entry is never used with.
    const issues = parsed.error.issues;
    if (issues.every((issue) => unsetAt(missing, issue.path).length > 0)) {
      const retry = configSchema.safeParse(withStandIns(interpolated, issues.map((issue) => ({ path: issue.path, variables: unsetAt(missing, issue.path) }))));
      if (retry.success) parsed = retry;
    }
    if (!parsed.success) {
      // Otherwise the error names the variable: "Invalid URL" alone would hide the cause.
      const problems = describeIssues(parsed.error.issues, knownKeysAt).map((problem) => {
        const unset = [...new Set(missing.filter((m) => m.path === problem.path).map((m) => m.variable))];
        return unset.length === 0 ? problem : { ...problem, message: `${problem.message} (the environment variable ${unset.join(", ")} ${unset.length === 1 ? "is" : "are"} not set)` };
      });
      throw new ConfigError(source, problems);
    }
  }
  return { ...normalize(parsed.data, missing, source), environmentValues: [...substituted] };
}

/** The unset variables used in the string at exactly this path (where a field's problem is). */
function unsetAt(missing: MissingVariable[], path: readonly PropertyKey[]): string[] {
  const only = (path[0] === "providers" || path[0] === "mcpServers") && path.length >= 3;
  return only ? [...new Set(missing.filter((m) => m.keys.length === path.length && m.keys.every((k, i) => k === path[i])).map((m) => m.variable))] : [];
}

/** The config with `unset:<VAR>` (a valid URL, a non-empty command) at each of those paths. */
function withStandIns(value: unknown, standIns: { path: readonly PropertyKey[]; variables: string[] }[], at: PropertyKey[] = []): unknown {
  const here = standIns.find((s) => s.path.length === at.length && s.path.every((k, i) => k === at[i]));
  if (here) return `unset:${here.variables.join(",")}`;
  if (Array.isArray(value)) return value.map((item, i) => withStandIns(item, standIns, [...at, i]));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withStandIns(item, standIns, [...at, key])]));
  }
  return value;
}

function normalize(raw: RawConfig, missing: MissingVariable[], source: string): Omit<GatewayConfig, "environmentValues"> {
  const toolTimeoutMs = raw.gateway.toolTimeoutMs ?? DEFAULTS.toolTimeoutMs;
  const maxResultTokens = raw.gateway.maxResultTokens ?? DEFAULTS.maxResultTokens;
  const serverStartTimeoutMs = raw.gateway.serverStartTimeoutMs ?? DEFAULTS.serverStartTimeoutMs;
  const servers = Object.entries(raw.mcpServers).map(([name, server]) =>
    toServerConfig(name, server, { timeoutMs: toolTimeoutMs, startTimeoutMs: serverStartTimeoutMs, maxResultTokens }, unsetIn(missing, "mcpServers", name)),
  );
  const problems = [...crossReferenceProblems(raw), ...unsetGatewayKeys(missing)];
  if (problems.length > 0) throw new ConfigError(source, problems);
  const providers = Object.fromEntries(
    Object.entries(raw.providers).map(([name, provider]) => [
      name,
      {
        ...provider,
        name,
        missingVariables: unsetIn(missing, "providers", name),
      },
    ]),
  );
  const g = raw.gateway;
  const keyPolicies = toKeyPolicies(g.apiKeys ?? []);
  return {
    servers,
    providers,
    models: raw.models,
    gateway: {
      host: g.host ?? DEFAULTS.host,
      port: g.port ?? DEFAULTS.port,
      apiKeys: keyPolicies.map((policy) => policy.key),
      keyPolicies,
      maxIterations: g.maxIterations ?? DEFAULTS.maxIterations,
      toolTimeoutMs,
      serverStartTimeoutMs,
      chatTool: g.chatTool ?? true,
      retries: { ...DEFAULTS.retries, ...g.retries },
      maxBodyBytes: g.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
      maxConcurrentRequests: g.maxConcurrentRequests ?? DEFAULTS.maxConcurrentRequests,
      maxMessages: g.maxMessages ?? DEFAULTS.maxMessages,
      maxJsonDepth: g.maxJsonDepth ?? DEFAULTS.maxJsonDepth,
      maxArrayLength: g.maxArrayLength ?? DEFAULTS.maxArrayLength,
      requestTimeoutMs: g.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
      sampling: g.sampling,
      allowedHosts: g.allowedHosts ?? [],
      allowedOrigins: g.allowedOrigins ?? [],
      forwardRoots: g.forwardRoots ?? false,
      maxMcpSessions: g.maxMcpSessions ?? DEFAULTS.maxMcpSessions,
      corsOrigins: g.cors?.allowedOrigins ?? [],
      observability: {
        metrics: g.observability?.metrics ?? true,
        ui: g.observability?.ui ?? true,
        recentRequests: g.observability?.recentRequests ?? 200,
        captureContent: g.observability?.captureContent ?? false,
      },
      store: g.store === undefined || g.store === "memory" ? { kind: "memory" } : { kind: "redis", url: g.store.redis.url, ...(g.store.redis.keyPrefix === undefined ? {} : { keyPrefix: g.store.redis.keyPrefix }) },
      context: g.context,
      toolSearch: g.toolSearch,
      toolPolicy: g.toolPolicy,
      finalAnswer: g.finalAnswer ?? false,
      maxResultTokens,
    },
    missingVariables: missing,
  };
}

/** gateway.apiKeys as policies: a plain string is a key without limits (an empty one is left out, as before). */
function toKeyPolicies(entries: NonNullable<RawConfig["gateway"]["apiKeys"]>): KeyPolicy[] {
  return entries.flatMap((entry, i): KeyPolicy[] => {
    if (typeof entry === "string") return entry === "" ? [] : [{ key: entry, name: `key #${i + 1}` }];
    return [
      {
        key: entry.key,
        name: entry.name ?? `key #${i + 1}`,
        ...(entry.rpm === undefined ? {} : { rpm: entry.rpm }),
        ...(entry.tpm === undefined ? {} : { tpm: entry.tpm }),
        ...(entry.models === undefined ? {} : { models: entry.models }),
        ...(entry.mcpServers === undefined ? {} : { mcpServers: entry.mcpServers }),
        ...(entry.autoApprove === undefined ? {} : { autoApprove: entry.autoApprove }),
      },
    ];
  });
}

/** The unset variables used in one server's or provider's entry (deduplicated, in order). */
function unsetIn(missing: MissingVariable[], section: string, name: string): string[] {
  return [...new Set(missing.filter((m) => m.keys[0] === section && m.keys[1] === name).map((m) => m.variable))];
}

function toServerConfig(name: string, server: RawServerConfig, defaults: { timeoutMs: number; startTimeoutMs: number; maxResultTokens: number }, missingVariables: string[]): ServerConfig {
  const common = {
    name,
    disabled: server.disabled ?? false,
    missingVariables,
    timeoutMs: server.timeoutMs ?? defaults.timeoutMs,
    startTimeoutMs: server.startTimeoutMs ?? defaults.startTimeoutMs,
    probeModelTools: server.probeModelTools ?? true,
    prefix: server.prefix ?? `${name}__`,
    tools: { allow: server.tools?.allow, deny: server.tools?.deny },
    maxResultTokens: server.maxResultTokens ?? defaults.maxResultTokens,
  };
  if (server.command !== undefined) {
    return { ...common, era: server.era ?? "2025-11-25", transport: "stdio", command: server.command, args: server.args ?? [], env: server.env ?? {}, cwd: server.cwd };
  }
  return {
    ...common,
    // An SSE server is of the 2025 era by definition.
    era: server.type === "sse" ? "2025-11-25" : (server.era ?? "auto"),
    transport: server.type === "sse" ? "sse" : "http",
    url: server.url!,
    headers: server.headers ?? {},
  };
}

/**
 * A gateway key whose variable is unset would silently turn authentication off: refuse it.
 * (Providers with unset keys are only unavailable; the gateway's own keys guard everything.)
 */
function unsetGatewayKeys(missing: MissingVariable[]): FieldProblem[] {
  return missing
    .filter((m) => m.keys[0] === "gateway" && m.keys[1] === "apiKeys")
    .map((m) => ({ path: m.path, message: `the environment variable ${m.variable} is not set (an API key must not be empty)` }));
}

/** References between sections: aliases name known providers/servers. */
function crossReferenceProblems(raw: RawConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const serverNames = Object.keys(raw.mcpServers);
  const providerNames = Object.keys(raw.providers);
  const checkModel = (ref: string, path: string, allowAlias = false) => {
    const slash = ref.indexOf("/");
    if (slash > 0 && providerNames.includes(ref.slice(0, slash))) return;
    if (allowAlias && ref in raw.models) return;
    const expected = `"provider/model" with a configured provider (${providerNames.join(", ") || "none configured"})`;
    problems.push({ path, message: `expected ${expected}${allowAlias ? " or a model alias" : ""}, got "${ref}"` });
  };
  for (const [alias, model] of Object.entries(raw.models)) {
    if (model.model !== undefined) checkModel(model.model, `models.${alias}.model`);
    (model.deployments ?? []).forEach((deployment, i) => checkModel(deployment.model, `models.${alias}.deployments[${i}].model`));
    (model.fallbacks ?? []).forEach((ref, i) => checkModel(ref, `models.${alias}.fallbacks[${i}]`));
    (model.mcpServers ?? []).forEach((server, i) => {
      if (!serverNames.includes(server)) {
        problems.push({ path: `models.${alias}.mcpServers[${i}]`, message: `unknown MCP server "${server}" (known: ${serverNames.join(", ") || "none"})` });
      }
    });
  }
  if (raw.gateway.sampling) checkModel(raw.gateway.sampling.model, "gateway.sampling.model", true);
  if (raw.gateway.context?.summarizer !== undefined) checkModel(raw.gateway.context.summarizer, "gateway.context.summarizer", true);
  for (const [alias, model] of Object.entries(raw.models)) {
    if (model.context?.summarizer !== undefined) checkModel(model.context.summarizer, `models.${alias}.context.summarizer`, true);
  }
  problems.push(...apiKeyProblems(raw, serverNames));
  return problems;
}

/**
 * gateway.apiKeys entries: their servers are configured ones; a key or a name is not given twice
 * (a key with two policies would be ambiguous; plain duplicate strings stay harmless).
 */
function apiKeyProblems(raw: RawConfig, serverNames: string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const entries = raw.gateway.apiKeys ?? [];
  const keys = new Map<string, number>();
  const names = new Map<string, number>();
  entries.forEach((entry, i) => {
    const key = typeof entry === "string" ? entry : entry.key;
    const first = keys.get(key);
    if (first === undefined) keys.set(key, i);
    else if (key !== "" && (typeof entry !== "string" || typeof entries[first] !== "string")) {
      problems.push({ path: `gateway.apiKeys[${i}]`, message: `the same key as gateway.apiKeys[${first}]: give each key one entry` });
    }
    if (typeof entry === "string") return;
    if (entry.name !== undefined) {
      const same = names.get(entry.name);
      if (same !== undefined) problems.push({ path: `gateway.apiKeys[${i}].name`, message: `"${entry.name}" is already the name of gateway.apiKeys[${same}]` });
      else names.set(entry.name, i);
    }
    (entry.mcpServers ?? []).forEach((server, j) => {
      if (!serverNames.includes(server)) {
        problems.push({ path: `gateway.apiKeys[${i}].mcpServers[${j}]`, message: `unknown MCP server "${server}" (known: ${serverNames.join(", ") || "none"})` });
      }
    });
  });
  return problems;
}
