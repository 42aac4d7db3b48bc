export type * from "./content.ts";
export type * from "./request.ts";
export type { Usage, StopReason, ChatResult, StreamEvent } from "./result.ts";
export { emptyUsage, addUsage } from "./result.ts";
export { GatewayError, isGatewayError, toGatewayError, parseRetryAfter } from "./errors.ts";
export type { ContextOverflow, ErrorType, GatewayErrorOptions, OpenAIErrorBody } from "./errors.ts";
export type { SchemaTarget, ToolProgress, ToolCallContext, ToolSet } from "./tools.ts";
export type { ChatModel } from "./model.ts";
