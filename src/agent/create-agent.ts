/**
 * The agent loop as a library: `createAgent` builds, in the embedding process, what the gateway
 * builds for a request — the configured providers (with their quirks, retries and fallbacks),
 * the MCP servers of mcp.config.json — plus tools defined in the program with zod. The loop is
 * the gateway's own: the same events, hooks and stop reasons.
 */
import { loadConfigFile, resolveConfig, resolveConfigPath, type GatewayConfig } from "../core/config/index.ts";
import { GatewayError, type Message, type ToolSet } from "../core/index.ts";
import { createLogger, silentLogger, type Logger } from "../core/logger.ts";
import { runInMode, type LoopEvent, type LoopHooks, type LoopMode, type LoopOutcome, type PlanOptions } from "../loop/index.ts";
import { McpPool } from "../mcp/pool.ts";
import { buildProviders, type ProviderEntry } from "../gateway/routing/providers.ts";
import { resilientModel } from "../gateway/routing/resilient-model.ts";
import { resolveModel, type ResolvedModel } from "../gateway/routing/resolve-model.ts";
import { combineToolSets, localToolSet, TOOL_NAME, type LocalTool } from "./local-tools.ts";

export interface AgentOptions {
  /** mcp.config.json's path, or its content as an object (default: MCP_GATEWAY_CONFIG, else ./mcp.config.json). */
  config?: string | Record<string, unknown>;
  /** Where `${VAR}`s of the config come from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** `provider/model` or an alias of the config (default: the alias "default"). */
  model?: string;
  /** A system prompt (default: the alias's `system`). */
  system?: string;
  /** The MCP servers whose tools the model may use (default: the alias's selection, else all); [] for none. */
  mcpServers?: string[];
  /** Tools of the program, run in-process. */
  tools?: readonly LocalTool[];
  hooks?: LoopHooks;
  /** Model calls per run at most (default: gateway.maxIterations). */
  maxIterations?: number;
  /** A pino logger (default: warnings and errors to stderr). */
  logger?: Logger;
  /** "plan": plan, run each step, answer from the results (default: the alias's mode, else "agent"). */
  mode?: LoopMode;
  /** Plan mode's settings: steps at most, turns per step, a review of the plan before it runs. */
  plan?: PlanOptions;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Streams text and reasoning deltas as events (default: true for `stream`, false for `run`). */
  stream?: boolean;
  /** This run's mode (default: the agent's). */
  mode?: LoopMode;
}

export interface AgentResult extends LoopOutcome {
  /** The answer's text (every turn's). */
  text: string;
  /** The whole conversation after the run: pass it (plus a new user message) to continue it. */
  messages: Message[];
}

/** A prompt, or a conversation (the system prompt is added when it has none). */
export type AgentInput = string | readonly Message[];

export interface Agent {
  /** The model as asked for (alias or `provider/model`). */
  readonly model: string;
  /** The names of the tools the model is offered now (local, then MCP). */
  toolNames(): string[];
  /** Runs the loop, yielding its events; returns the result. */
  stream(input: AgentInput, options?: RunOptions): AsyncGenerator<LoopEvent, AgentResult>;
  /** Runs the loop to its end. */
  run(input: AgentInput, options?: RunOptions): Promise<AgentResult>;
  /** Stops the MCP servers the agent started. */
  close(): Promise<void>;
}

async function loadConfig(options: AgentOptions): Promise<GatewayConfig> {
  const env = options.env ?? process.env;
  if (typeof options.config === "object") return resolveConfig(options.config, env, "(createAgent config)");
  return loadConfigFile(options.config ?? resolveConfigPath(undefined, env), env);
}

function checkLocalTools(tools: readonly LocalTool[]): void {
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (!TOOL_NAME.test(tool.name)) throw new TypeError(`tools[${index}].name: "${tool.name}" must match ${TOOL_NAME}`);
    if (seen.has(tool.name)) throw new TypeError(`tools[${index}].name: "${tool.name}" is given twice`);
    seen.add(tool.name);
  }
}

function servers(options: AgentOptions, model: ResolvedModel, known: readonly string[]): readonly string[] | undefined {
  const unknown = (options.mcpServers ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw GatewayError.invalidRequest(`mcpServers: unknown MCP servers ${unknown.join(", ")} (configured: ${known.join(", ") || "none"})`, "mcpServers");
  const allowed = model.alias?.mcpServers;
  const outside = allowed ? (options.mcpServers ?? []).filter((name) => !allowed.includes(name)) : [];
  if (outside.length > 0) throw GatewayError.invalidRequest(`mcpServers: ${outside.join(", ")} outside the selection of model "${model.requested}"`, "mcpServers");
  return options.mcpServers ?? allowed;
}

function conversation(input: AgentInput, system: string | undefined): Message[] {
  const messages: Message[] = typeof input === "string" ? [{ role: "user", content: [{ type: "text", text: input }] }] : [...input];
  if (system === undefined || messages.some((m) => m.role === "system")) return messages;
  return [{ role: "system", content: [{ type: "text", text: system }] }, ...messages];
}

function textOf(outcome: LoopOutcome): string {
  return outcome.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}

export async function createAgent(options: AgentOptions = {}): Promise<Agent> {
  const config = await loadConfig(options);
  const logger = options.logger ?? createLogger({ level: "warn" });
  const local = options.tools ?? [];
  checkLocalTools(local);
  const providers: Map<string, ProviderEntry> = buildProviders(config.providers, undefined, config.path ?? "(createAgent config)");
  const modelName = options.model ?? "default";
  const model = resolveModel(modelName, providers, config.models);
  const pool = new McpPool(config.servers, { logger });
  const selection = servers(options, model, pool.serverNames());
  await pool.start();
  const localTools = localToolSet(local);
  // A snapshot per run: servers that restart or change their tools are seen by the next run.
  const toolsNow = (): ToolSet => (selection?.length === 0 ? localTools : combineToolSets(localTools, pool.select(selection)));
  const system = options.system ?? model.alias?.system;

  async function* stream(input: AgentInput, run: RunOptions = {}): AsyncGenerator<LoopEvent, AgentResult> {
    const tools = toolsNow();
    const schemaTarget = model.provider.schemaTarget;
    const messages = conversation(input, system);
    const outcome = yield* runInMode({
      model: resilientModel({ candidates: model.candidates, tools, schemaTarget, policy: config.gateway.retries, logger }),
      schemaTarget,
      request: {
        model: model.modelId,
        messages,
        ...(model.alias?.temperature === undefined ? {} : { temperature: model.alias.temperature }),
        ...(model.alias?.maxTokens === undefined ? {} : { maxTokens: model.alias.maxTokens }),
      },
      tools,
      stream: run.stream ?? true,
      maxIterations: options.maxIterations ?? config.gateway.maxIterations,
      ...(options.hooks ? { hooks: options.hooks } : {}),
      ...(run.signal ? { signal: run.signal } : {}),
    }, run.mode ?? options.mode ?? model.alias?.mode, options.plan);
    return { ...outcome, text: textOf(outcome), messages: [...messages, ...outcome.newMessages] };
  }

  return {
    model: modelName,
    toolNames: () => toolsNow().definitions(model.provider.schemaTarget).map((d) => d.name),
    stream,
    async run(input, run = {}) {
      const loop = stream(input, { ...run, stream: run.stream ?? false });
      let step = await loop.next();
      while (!step.done) step = await loop.next();
      return step.value;
    },
    close: () => pool.close(),
  };
}

export { silentLogger };
