/**
 * JSON-RPC errors on the MCP surface. An upstream server's error is passed to the client as the
 * server sent it (same code, message and data): the SDK's McpError prefixes "MCP error <code>: "
 * to the wire message on receipt, so that prefix is taken off again before it is re-sent.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/** `resources/read` of a URI no server has (the code the MCP spec gives for it). */
export const RESOURCE_NOT_FOUND = -32002;

/** An error the SDK's Protocol sends as `{ code, message, data }` verbatim. */
export class RelayedError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RelayedError";
  }
}

export function mcpError(code: number, message: string, data?: unknown): RelayedError {
  return new RelayedError(code, message, data);
}

const PREFIX = /^MCP error -?\d+: /;

/** Any failure of an upstream request, as the error to answer the downstream request with. */
export function relayError(error: unknown): Error {
  if (error instanceof RelayedError) return error;
  if (error instanceof McpError) return new RelayedError(error.code, error.message.replace(PREFIX, ""), error.data);
  if (error instanceof Error && error.name === "AbortError") return new RelayedError(ErrorCode.RequestTimeout, "Request was cancelled");
  const message = error instanceof Error ? error.message : String(error);
  return new RelayedError(ErrorCode.InternalError, message);
}
