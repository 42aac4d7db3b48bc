/**
 * The package's entry point (`import { createAgent } from "mcp-agent-gateway"`): the agent loop
 * in-process with the configured providers and MCP servers, plus tools of your own. The types
 * are the loop's and the neutral conversation model's, as the gateway itself uses them.
 */
export { createAgent, silentLogger, type Agent, type AgentInput, type AgentOptions, type AgentResult, type RunOptions } from "./agent/create-agent.ts";
export { defineTool, type LocalTool, type LocalToolContext, type LocalToolOutput } from "./agent/local-tools.ts";
export { GatewayError } from "./core/index.ts";
export type {
  AssistantMessage,
  ToolResultContent,
  Message,
  ToolCallBlock,
  ToolDefinition,
  ToolProgress,
  ToolResultBlock,
  Usage,
} from "./core/index.ts";
export type { LoopEvent, LoopHooks, LoopMode, LoopOutcome, LoopStopReason, PlanOptions, PlanReport, PlanReview, PlanStep, ToolExecution } from "./loop/index.ts";
export type { Logger } from "./core/logger.ts";
