/**
 * A request's own loop options: `mcp_gateway` in the body (any door) and the `x-mcp-gateway-*`
 * headers. They only narrow what the key and the alias allow (loop-setup.ts planLoop).
 */
import { z } from "zod";
import { GatewayError } from "../../core/index.ts";
import type { LoopMode } from "../../loop/index.ts";
import { patternMatcher } from "../../loop/tool-views.ts";

/** The loop options of one request (`mcp_gateway` in the body; headers). They narrow, never widen. */
export interface RequestLoopOptions {
  maxIterations?: number;
  /** MCP servers, as `x-mcp-servers` names them. */
  mcpServers?: string[];
  tools?: { allow?: string[]; deny?: string[] };
  finalAnswer?: boolean;
  /** Stream the gateway's tool calls live (start, MCP progress, end): tool-events.ts. */
  toolEvents?: boolean;
  /** "plan": plan-then-execute for this request (src/loop/plan-mode.ts). */
  mode?: LoopMode;
}

const bodyOptions = z
  .strictObject({
    max_iterations: z.number().int().positive().optional(),
    mcp_servers: z.array(z.string().min(1)).optional(),
    tools: z.strictObject({ allow: z.array(z.string().min(1)).optional(), deny: z.array(z.string().min(1)).optional() }).optional(),
    final_answer: z.boolean().optional(),
    tool_events: z.boolean().optional(),
    mode: z.enum(["agent", "plan"]).optional(),
  })
  .nullable()
  .optional();

const list = (value: string) => value.split(",").map((s) => s.trim()).filter((s) => s !== "");

/**
 * Takes `mcp_gateway` out of a request body (it must not travel on to a provider) and reads it
 * with the `x-mcp-gateway-*` headers: `max-iterations`, `tools-allow`, `tools-deny` (comma
 * lists), `final-answer` and `tool-events` (true/false). Both given: the narrower wins (the
 * body's `tool_events` over the header's: it is not a limit).
 */
export function takeLoopOptions(json: unknown, header: (name: string) => string | undefined): RequestLoopOptions {
  let body: z.infer<typeof bodyOptions>;
  if (typeof json === "object" && json !== null && !Array.isArray(json) && "mcp_gateway" in json) {
    const record = json as Record<string, unknown>;
    const parsed = bodyOptions.safeParse(record["mcp_gateway"]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = ["mcp_gateway", ...issue.path.map(String)].join(".");
      throw GatewayError.invalidRequest(`Invalid request: ${path}: ${issue.message}`, path, "invalid_mcp_gateway_option");
    }
    body = parsed.data;
    delete record["mcp_gateway"];
  }
  const options: RequestLoopOptions = {};
  const headerIterations = header("x-mcp-gateway-max-iterations");
  let maxIterations = body?.max_iterations;
  if (headerIterations !== undefined && headerIterations.trim() !== "") {
    const n = Number(headerIterations);
    if (!Number.isInteger(n) || n < 1) throw GatewayError.invalidRequest(`x-mcp-gateway-max-iterations: expected a positive integer, got "${headerIterations}"`, "x-mcp-gateway-max-iterations", "invalid_mcp_gateway_option");
    maxIterations = maxIterations === undefined ? n : Math.min(maxIterations, n);
  }
  if (maxIterations !== undefined) options.maxIterations = maxIterations;
  if (body?.mcp_servers) options.mcpServers = [...new Set(body.mcp_servers)];
  const allow = [...(body?.tools?.allow ?? [])];
  const headerAllow = header("x-mcp-gateway-tools-allow");
  const headerDeny = header("x-mcp-gateway-tools-deny");
  // Built only from what was given: most requests give neither (no split, no copies).
  const deny = body?.tools?.deny === undefined && headerDeny === undefined ? [] : [...(body?.tools?.deny ?? []), ...list(headerDeny ?? "")];
  if (body?.tools?.allow !== undefined || headerAllow !== undefined) {
    // Both given: a tool must pass both.
    const fromHeader = headerAllow === undefined ? undefined : list(headerAllow);
    options.tools = { allow: body?.tools?.allow === undefined ? fromHeader! : allow, ...(deny.length > 0 ? { deny } : {}) };
    if (body?.tools?.allow !== undefined && fromHeader !== undefined) {
      const matchHeader = patternMatcher(fromHeader);
      options.tools.allow = allow.filter((pattern) => matchHeader(pattern) || fromHeader.includes(pattern));
    }
  } else if (deny.length > 0) options.tools = { deny };
  const finalAnswer = body?.final_answer ?? booleanHeader(header, "x-mcp-gateway-final-answer");
  if (finalAnswer !== undefined) options.finalAnswer = finalAnswer;
  const toolEvents = body?.tool_events ?? booleanHeader(header, "x-mcp-gateway-tool-events");
  if (toolEvents !== undefined) options.toolEvents = toolEvents;
  const mode = body?.mode ?? modeHeader(header("x-mcp-gateway-mode"));
  if (mode !== undefined) options.mode = mode;
  return options;
}

/** `x-mcp-gateway-mode: agent | plan`; undefined when absent or empty. */
function modeHeader(value: string | undefined): LoopMode | undefined {
  const mode = value?.trim().toLowerCase();
  if (mode === undefined || mode === "") return undefined;
  if (mode !== "agent" && mode !== "plan") throw GatewayError.invalidRequest(`x-mcp-gateway-mode: expected agent or plan, got "${mode}"`, "x-mcp-gateway-mode", "invalid_mcp_gateway_option");
  return mode;
}

/** A true/false header (also 1/0); undefined when absent or empty. */
function booleanHeader(header: (name: string) => string | undefined, name: string): boolean | undefined {
  const value = header(name)?.trim().toLowerCase();
  if (value === undefined || value === "") return undefined;
  if (!["true", "false", "1", "0"].includes(value)) throw GatewayError.invalidRequest(`${name}: expected true or false, got "${value}"`, name, "invalid_mcp_gateway_option");
  return value === "true" || value === "1";
}
