/** The OpenAI Responses front door: `POST /v1/responses` (Codex, the Agents SDK, `responses.create`). */
import type { Context } from "hono";
import { GatewayError, type Message, type ToolDefinition } from "../../../core/index.ts";
import { extend } from "../../../core/extend.ts";
import type { GatewayConfig } from "../../../core/config/index.ts";
import type { Logger } from "../../../core/logger.ts";
import { describeIssues } from "../../../core/zod-issues.ts";
import { invalidRequest } from "../../http/errors.ts";
import type { ProviderEntry } from "../../routing/providers.ts";
import type { ChatDeps } from "../../shared/deps.ts";
import type { Door, ParsedRequest, PreparedRequest } from "../../shared/door.ts";
import { tenantOf } from "../../shared/handler.ts";
import { checkMessageCount } from "../../shared/prepare.ts";
import type { ResponseStore, StoredResponse } from "../../state/responses.ts";
import { runApprovals } from "./approvals.ts";
import { listToolsItem, newId, outcomeItems, type ItemContext, type OutputItem } from "./output-items.ts";
import { responsesRequestSchema, type McpToolSpec, type ResponsesRequestBody } from "./request-schema.ts";
import { responseObject, statusOf, type ResponseHead } from "./response-object.ts";
import { toNeutralInput, type Approval, type ToolNamer } from "./to-neutral.ts";
import { flatName, planTools, type ToolPlan } from "./tools.ts";
import { toNeutralRequest } from "./to-request.ts";
import { ResponsesWriter } from "./writer.ts";

export interface ResponsesRequest extends ParsedRequest {
  body: ResponsesRequestBody;
  head: ResponseHead;
  plan: ToolPlan;
  approvals: Approval[];
  dropped: Set<string>;
  /** The conversation of `previous_response_id` (empty without one). */
  history: Message[];
  /** Server labels whose `mcp_list_tools` the conversation already has. */
  listed: Set<string>;
  /** Output items that open the answer: the tools of requested MCP servers, the approved MCP calls. */
  leading: OutputItem[];
  /** MCP tools whose calls wait for the client's approval. */
  approvalTools: Set<string>;
}

export function validateResponsesBody(json: unknown): ResponsesRequestBody {
  const parsed = responsesRequestSchema.safeParse(json);
  if (!parsed.success) throw invalidRequest(describeIssues(parsed.error.issues));
  return parsed.data;
}

/** The input as OpenAI lists it (`input_items`): every item with a type and an id, message text as parts. */
export function listedInput(input: ResponsesRequestBody["input"]): { [key: string]: unknown }[] {
  const items: { [key: string]: unknown }[] = typeof input === "string" ? [{ role: "user", content: input }] : (input ?? []);
  return items.map((item) => {
    const type = (item["type"] as string | undefined) ?? "message";
    const content = type === "message" && typeof item["content"] === "string" ? [{ type: item["role"] === "assistant" ? "output_text" : "input_text", text: item["content"] }] : item["content"];
    // { id, ...item, type, content } by assignment (the same keys in the same order): a spread
    // into a literal costs about 1 µs per item on Node 20, and Codex sends dozens of items.
    const listed = extend({ id: newId(type === "message" ? "msg" : "item") }, item);
    listed["type"] = type;
    if (content !== undefined) listed["content"] = content;
    return listed;
  });
}

/** Configured MCP servers named by `mcp` tools; a `server_url` the config does not have is refused. */
function mcpServers(specs: readonly McpToolSpec[], config: GatewayConfig): string[] | undefined {
  if (specs.length === 0) return undefined;
  return specs.map((spec, index) => {
    const server = config.servers.find((s) => s.name === spec.server_label);
    if (!server || server.disabled) {
      throw GatewayError.invalidRequest(`tools[${index}]: no MCP server "${spec.server_label}" is configured (the gateway calls only the servers of its config)`, `tools[${index}].server_label`, "unknown_mcp_server");
    }
    const url = server.transport === "stdio" ? undefined : server.url;
    if (spec.server_url !== undefined && spec.server_url !== url) {
      throw GatewayError.invalidRequest(`tools[${index}]: server_url is not the configured URL of "${spec.server_label}"; the gateway calls no URL a request names`, `tools[${index}].server_url`, "server_url_not_allowed");
    }
    return spec.server_label;
  });
}

/**
 * The request as the door's; a Promise only when it continues a stored response (the store is
 * read): without `previous_response_id` nothing waits, and an await would still cost a tick.
 */
export function parseResponses(json: unknown, config: GatewayConfig, store: ResponseStore, tenant: string, nameOf: ToolNamer = flatName): ResponsesRequest | Promise<ResponsesRequest> {
  const list = (json as { input?: unknown } | null)?.input;
  checkMessageCount(list, config.gateway.maxMessages, "input");
  const body = validateResponsesBody(json);
  const previousId = body.previous_response_id;
  if (!previousId) return responsesRequest(body, config, nameOf, undefined);
  return store.get(tenant, previousId).then((previous) => {
    if (!previous) throw GatewayError.invalidRequest(`Previous response with id '${previousId}' not found.`, "previous_response_id", "previous_response_not_found");
    return responsesRequest(body, config, nameOf, previous);
  });
}

/** The parsed request, after the conversation it continues (if any) was read. */
function responsesRequest(body: ResponsesRequestBody, config: GatewayConfig, nameOf: ToolNamer, previous: StoredResponse | undefined): ResponsesRequest {
  const items = typeof body.input === "string" || body.input === undefined ? [] : body.input;
  const plan = planTools(body.tools, items);
  const input = toNeutralInput(body.instructions, body.input, nameOf);
  const listed = new Set(items.filter((item) => item["type"] === "mcp_list_tools").map((item) => String(item["server_label"])));
  // Its instructions do not carry over (as on OpenAI: this request's replace them); its system
  // and developer messages do, as any input does.
  const history = previous ? (previous.instructions ? previous.messages.slice(1) : previous.messages) : [];
  if (previous) for (const label of previous.listed) listed.add(label);
  const servers = mcpServers(plan.mcp, config);
  return {
    model: body.model,
    // This request's instructions first, then the conversation it continues, then its input.
    request: toNeutralRequest(body, plan, body.instructions ? [input.messages[0]!, ...history, ...input.messages.slice(1)] : [...history, ...input.messages], nameOf),
    stream: body.stream === true,
    ...(servers ? { mcpServers: servers } : {}),
    body,
    head: { id: newId("resp"), createdAt: Math.floor(Date.now() / 1000), model: body.model, body },
    plan,
    approvals: input.approvals,
    dropped: input.dropped,
    history,
    listed,
    leading: [],
    approvalTools: new Set(),
  };
}

/** Whether a call of this MCP tool waits for the client's approval (OpenAI's default: every call does). */
function needsApproval(spec: McpToolSpec, tool: string): boolean {
  const rule = spec.require_approval ?? "always";
  if (rule === "always" || rule === "never") return rule === "always";
  if (rule.never?.tool_names?.includes(tool)) return false;
  if (rule.always?.tool_names?.includes(tool)) return true;
  return rule.always !== undefined && rule.always !== null && rule.always.tool_names === undefined;
}

function allowedTool(spec: McpToolSpec, tool: string): boolean {
  const allowed = spec.allowed_tools;
  if (!allowed) return true;
  const names = Array.isArray(allowed) ? allowed : allowed.tool_names;
  return names === undefined || names.includes(tool);
}

export interface ResponsesDoorDeps {
  logger: Logger;
  config: GatewayConfig;
  providers: ReadonlyMap<string, ProviderEntry>;
  tools: ChatDeps["tools"];
  responses: ResponseStore;
  /** The MCP annotations of a gateway tool, for the tool policy's approvals. */
  toolHints?: ChatDeps["toolHints"];
}

function itemContext(prepared: PreparedRequest<ResponsesRequest>, deps: ResponsesDoorDeps): ItemContext {
  const body = prepared.parsed.body;
  return {
    kinds: prepared.parsed.plan.kinds,
    approvals: prepared.parsed.approvalTools,
    encrypted: body.include?.includes("reasoning.encrypted_content") === true || body.store === false,
    isResponses: (origin) => deps.providers.get(origin)?.type === "openai-responses",
    origin: (name) => deps.tools.origin?.(name) ?? { server: name, tool: name },
  };
}

/**
 * The `mcp` tools' part, once the servers are selected: their tools filtered by `allowed_tools`;
 * the ones that need approval handed to the loop as the client's (it stops on them, and the
 * answer asks for approval); their lists as `mcp_list_tools` items where the conversation has none.
 */
function fitMcpTools(prepared: PreparedRequest<ResponsesRequest>, context: ItemContext): void {
  const specs = prepared.parsed.plan.mcp;
  if (specs.length === 0) return;
  const target = prepared.model.provider.schemaTarget;
  const definitions = prepared.tools.definitions(target);
  const listed = prepared.parsed.listed;
  const kept: ToolDefinition[] = [];
  const approval: ToolDefinition[] = [];
  for (const spec of specs) {
    const mine = definitions.filter((d) => context.origin(d.name).server === spec.server_label && allowedTool(spec, context.origin(d.name).tool));
    for (const definition of mine) (needsApproval(spec, context.origin(definition.name).tool) ? approval : kept).push(definition);
    if (!listed.has(spec.server_label)) {
      prepared.parsed.leading.push(listToolsItem(spec.server_label, mine, context));
      listed.add(spec.server_label);
    }
  }
  const keptNames = new Set([...kept, ...approval].map((d) => d.name));
  const selected = prepared.tools;
  prepared.tools = {
    definitions: (t) => selected.definitions(t).filter((d) => keptNames.has(d.name) && !approval.some((a) => a.name === d.name)),
    has: (name) => keptNames.has(name) && selected.has(name),
    // Only the tools `allowed_tools` keeps, whoever asks (the model, or an approval the client sends).
    call: (call, ctx) => (keptNames.has(call.name) ? selected.call(call, ctx) : Promise.resolve({ type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: `Error: the tool "${call.name}" is not allowed for this request` }], isError: true })),
  };
  for (const definition of approval) prepared.parsed.approvalTools.add(definition.name);
  if (approval.length > 0) prepared.request = { ...prepared.request, tools: [...(prepared.request.tools ?? []), ...approval] };
}

/**
 * Tools the gateway's tool policy wants approved (by name or MCP annotation) take OpenAI's own
 * approval flow through this door: offered to the model as the client's, a call of one ends the
 * answer with an `mcp_approval_request`, and the client's `mcp_approval_response` runs it
 * (approvals.ts). Not for a key that auto-approves.
 */
function fitPolicyApprovals(prepared: PreparedRequest<ResponsesRequest>, hints: ChatDeps["toolHints"]): void {
  const plan = prepared.plan;
  if (!plan?.policy.active || plan.autoApprove) return;
  const clientTools = new Set((prepared.request.tools ?? []).map((tool) => tool.name));
  const needing = prepared.tools
    .definitions(prepared.model.provider.schemaTarget)
    .filter((d) => !clientTools.has(d.name) && plan.policy.needsApproval(d.name, hints?.(d.name)));
  if (needing.length === 0) return;
  const names = new Set(needing.map((d) => d.name));
  const selected = prepared.tools;
  prepared.tools = { definitions: (t) => selected.definitions(t).filter((d) => !names.has(d.name)), has: (name) => selected.has(name), call: (call, ctx) => selected.call(call, ctx) };
  for (const name of names) prepared.parsed.approvalTools.add(name);
  prepared.request = { ...prepared.request, tools: [...(prepared.request.tools ?? []), ...needing] };
}

/** Hosted tools and what the neutral model could not hold: for a Responses upstream as sent, elsewhere left out and said. */
function fitHosted(prepared: PreparedRequest<ResponsesRequest>): void {
  const provider = prepared.model.provider;
  if (provider.type === "openai-responses") return;
  const { body, plan, dropped } = prepared.parsed;
  const choice = body.tool_choice;
  const forced = typeof choice === "object" && !["function", "custom", "mcp", "allowed_tools"].includes(choice.type) ? choice.type : undefined;
  if (forced !== undefined) {
    throw GatewayError.invalidRequest(`tool_choice forces the hosted tool "${forced}", which provider "${provider.name}" cannot run`, "tool_choice", "hosted_tool_not_supported");
  }
  for (const tool of plan.hosted) prepared.warnings.push(`hosted tool "${String(tool["type"])}" left out: provider "${provider.name}" cannot run OpenAI's hosted tools`);
  for (const type of dropped) prepared.warnings.push(`"${type}" input left out: provider "${provider.name}" cannot take it`);
}

export function responsesDoor(deps: ResponsesDoorDeps): Door<ResponsesRequest> {
  return {
    label: "response",
    parse: (json: unknown, c: Context) => parseResponses(json, deps.config, deps.responses, tenantOf(c), (server, tool) => deps.tools.exposed?.(server, tool) ?? flatName(server, tool)),
    fit(prepared, signal) {
      const context = itemContext(prepared, deps);
      fitHosted(prepared);
      fitMcpTools(prepared, context);
      fitPolicyApprovals(prepared, deps.toolHints);
      // The MCP calls the client approved run before the loop; without any, nothing waits.
      if (prepared.parsed.approvals.length === 0) return;
      return runApprovals(prepared, context, signal).then((items) => {
        prepared.parsed.leading.push(...items);
      });
    },
    respond(outcome, prepared) {
      const output = [...prepared.parsed.leading, ...outcomeItems(outcome, itemContext(prepared, deps))];
      const head = extend(prepared.parsed.head, { model: outcome.last.model });
      return { body: responseObject(head, output, extend(statusOf(outcome), { outcome })), headers: { "x-mcp-gateway-stop-reason": outcome.stopReason } };
    },
    writer: (prepared) => new ResponsesWriter(prepared.parsed.head, itemContext(prepared, deps), prepared.parsed.leading, prepared.parsed.loop?.toolEvents === true),
    remember(prepared, outcome, answer, answerJson) {
      if (prepared.parsed.body.store === false) return;
      const id = prepared.parsed.head.id;
      // The answer still goes out when this fails; only a later retrieve or previous_response_id will miss it.
      const failed = (error: unknown) => deps.logger.error({ err: (error as Error).message, response: id }, "could not store the response (state store unavailable)");
      try {
        const entry = {
          response: answer as { [key: string]: unknown },
          // Listed only for a response that is stored (Codex stores none, and sends dozens of items).
          input: listedInput(prepared.parsed.body.input),
          messages: [...prepared.request.messages, ...outcome.newMessages],
          listed: [...prepared.parsed.listed],
          instructions: Boolean(prepared.parsed.body.instructions),
        };
        return deps.responses.set(prepared.tenant, id, entry, answerJson).catch(failed);
      } catch (error) {
        failed(error);
      }
    },
  };
}
