/**
 * JSON-RPC errors on the MCP surface. An upstream server's error is passed to the client as the
 * server sent it (same code, message and data). Failures that never crossed the wire (the SDK's
 * local errors: a timeout, a closed connection, an invalid result) get a JSON-RPC code here.
 *
 * Errors are recognized by their fields, not their classes: the SDK's client and server
 * packages each bundle their own copies of the error classes.
 */

/** The JSON-RPC codes the gateway answers with. */
export const ErrorCode = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/**
 * `resources/read` of a URI no server has. The SDK sends it as -32602 (what the 2026-07-28
 * revision requires, and what the SDK has always sent for an unknown resource).
 */
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

/** The SDK's local error codes (SdkErrorCode), as the JSON-RPC code the client gets. */
const LOCAL_CODES: Record<string, number> = {
  REQUEST_TIMEOUT: ErrorCode.RequestTimeout,
  CONNECTION_CLOSED: ErrorCode.ConnectionClosed,
  NOT_CONNECTED: ErrorCode.ConnectionClosed,
};

/** Any failure of an upstream request, as the error to answer the downstream request with. */
export function relayError(error: unknown): Error {
  if (error instanceof RelayedError) return error;
  if (error instanceof Error) {
    const { code, data } = error as Error & { code?: unknown; data?: unknown };
    // A JSON-RPC error from the server (the SDK's ProtocolError): as it came.
    if (typeof code === "number" && Number.isSafeInteger(code)) return new RelayedError(code, error.message, data);
    if (typeof code === "string") return new RelayedError(LOCAL_CODES[code] ?? ErrorCode.InternalError, error.message, data);
    if (error.name === "AbortError") return new RelayedError(ErrorCode.RequestTimeout, "Request was cancelled");
    return new RelayedError(ErrorCode.InternalError, error.message);
  }
  return new RelayedError(ErrorCode.InternalError, String(error));
}
