/**
 * Names from the OpenTelemetry semantic conventions for GenAI and MCP. They are still
 * "incubating" there, and the semantic-conventions package advises copying such names rather
 * than importing its incubating entry point (800 KB, and free to change in a minor release);
 * test/observe/units.test.ts checks these copies against the package. Prometheus spells them
 * with underscores and a unit suffix (`gen_ai.client.token.usage` → `gen_ai_client_token_usage`,
 * `gen_ai.client.operation.duration` in seconds → `gen_ai_client_operation_duration_seconds`).
 */
export const ATTR = {
  GEN_AI_OPERATION_NAME: "gen_ai.operation.name",
  GEN_AI_PROVIDER_NAME: "gen_ai.provider.name",
  GEN_AI_REQUEST_MODEL: "gen_ai.request.model",
  GEN_AI_REQUEST_STREAM: "gen_ai.request.stream",
  GEN_AI_REQUEST_MAX_TOKENS: "gen_ai.request.max_tokens",
  GEN_AI_REQUEST_TEMPERATURE: "gen_ai.request.temperature",
  GEN_AI_RESPONSE_MODEL: "gen_ai.response.model",
  GEN_AI_RESPONSE_ID: "gen_ai.response.id",
  GEN_AI_RESPONSE_FINISH_REASONS: "gen_ai.response.finish_reasons",
  GEN_AI_USAGE_INPUT_TOKENS: "gen_ai.usage.input_tokens",
  GEN_AI_USAGE_OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  GEN_AI_TOKEN_TYPE: "gen_ai.token.type",
  GEN_AI_TOOL_NAME: "gen_ai.tool.name",
  GEN_AI_TOOL_CALL_ID: "gen_ai.tool.call.id",
  GEN_AI_TOOL_TYPE: "gen_ai.tool.type",
  GEN_AI_TOOL_CALL_ARGUMENTS: "gen_ai.tool.call.arguments",
  GEN_AI_TOOL_CALL_RESULT: "gen_ai.tool.call.result",
  GEN_AI_INPUT_MESSAGES: "gen_ai.input.messages",
  GEN_AI_OUTPUT_MESSAGES: "gen_ai.output.messages",
  GEN_AI_CONVERSATION_ID: "gen_ai.conversation.id",
  MCP_METHOD_NAME: "mcp.method.name",
} as const;

export const OPERATION = {
  CHAT: "chat",
  EXECUTE_TOOL: "execute_tool",
} as const;

/** The semantic conventions' metric names (OpenTelemetry spelling). */
export const METRIC = {
  GEN_AI_CLIENT_TOKEN_USAGE: "gen_ai.client.token.usage",
  GEN_AI_CLIENT_OPERATION_DURATION: "gen_ai.client.operation.duration",
  GEN_AI_SERVER_REQUEST_DURATION: "gen_ai.server.request.duration",
  GEN_AI_SERVER_TIME_TO_FIRST_TOKEN: "gen_ai.server.time_to_first_token",
  MCP_CLIENT_OPERATION_DURATION: "mcp.client.operation.duration",
  MCP_SERVER_OPERATION_DURATION: "mcp.server.operation.duration",
} as const;

/** A metric name in Prometheus spelling: dots to underscores, the unit as a suffix. */
export function prometheusName(name: string, unit?: "seconds"): string {
  const base = name.replace(/\./g, "_");
  return unit ? `${base}_${unit}` : base;
}

/** An attribute name as a Prometheus label. */
export function label(name: string): string {
  return name.replace(/\./g, "_");
}
