import { createHash } from "node:crypto";
import type { Context } from "hono";
import { GatewayError, toGatewayError } from "../../../core/index.ts";
import type { ChatDeps } from "../../chat/context.ts";
import { prepareChat } from "../../chat/prepare.ts";
import { completeChat } from "../../chat/respond-json.ts";
import { streamChat } from "../../chat/respond-sse.ts";
import { whenClientGone } from "../client-gone.ts";
import { readBodyText } from "../read-body.ts";
import { errorResponse } from "../errors.ts";
import { jsonShapeProblem, type JsonLimits } from "../limits.ts";

async function readJson(c: Context, limits: JsonLimits & { maxBodyBytes: number }): Promise<unknown> {
  const text = await readBodyText(c, limits.maxBodyBytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw GatewayError.invalidRequest(`The body is not valid JSON: ${(error as Error).message}`, undefined, "invalid_json");
  }
  const problem = jsonShapeProblem(json, limits);
  if (problem) throw GatewayError.invalidRequest(`Invalid request: ${problem.path || "body"}: ${problem.message}`, problem.path || undefined, "request_too_complex");
  return json;
}

/** A stable, non-reversible id of the caller's key (the key itself is never kept). */
function tenantOf(authorization: string | undefined): string {
  return authorization ? createHash("sha256").update(authorization).digest("base64url").slice(0, 16) : "anonymous";
}

/** The message of an error and of its cause (internal errors hide details from clients, not logs). */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? message : `${message}: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`;
}

export function chatCompletionsHandler(deps: ChatDeps) {
  return async (c: Context): Promise<Response> => {
    const requestId = c.get("requestId") as string;
    // The request id goes into each line's fields: a child logger per request costs more.
    const log = deps.logger;
    const started = performance.now();
    // Aborted when the client disconnects: cancels the upstream call and pending MCP calls.
    const controller = new AbortController();
    const stopWatching = whenClientGone(c, () =>
      controller.abort(new GatewayError("the client closed the connection", { status: 499, type: "api_error", code: "client_closed" })),
    );
    const limits = deps.config.gateway;
    // The whole request (every turn and tool call) has a deadline.
    const deadline = setTimeout(
      () => controller.abort(new GatewayError(`The request took longer than ${limits.requestTimeoutMs} ms`, { status: 504, type: "timeout_error", code: "request_timeout" })),
      limits.requestTimeoutMs,
    );
    deadline.unref();
    try {
      const prepared = await prepareChat(await readJson(c, limits), c.req.header("x-mcp-servers"), tenantOf(c.req.header("authorization")), deps);
      const logFields = { requestId, model: prepared.model.requested, provider: prepared.model.provider.name, stream: prepared.stream };
      if (prepared.stream) {
        const handle = await streamChat(prepared, deps, controller, { "x-request-id": requestId });
        void handle.finished.then((outcome) => {
          clearTimeout(deadline);
          stopWatching();
          log.info({ ...logFields, ms: Math.round(performance.now() - started), stop: outcome?.stopReason ?? "aborted_or_failed", turns: outcome?.turns, usage: outcome?.usage }, "chat completion streamed");
        });
        return handle.response;
      }
      const { completion, outcome } = await completeChat(prepared, deps, controller.signal);
      clearTimeout(deadline);
      stopWatching();
      log.info({ ...logFields, ms: Math.round(performance.now() - started), stop: outcome.stopReason, turns: outcome.turns, tools: outcome.tools.length, usage: outcome.usage }, "chat completion");
      return c.json(completion, 200, { "x-mcp-gateway-stop-reason": outcome.stopReason });
    } catch (error) {
      clearTimeout(deadline);
      stopWatching();
      const failure = error instanceof GatewayError ? error : undefined;
      if (!failure || failure.status >= 500) log.error({ requestId, err: describeFailure(error) }, "chat completion failed");
      else log.info({ requestId, status: failure.status, code: failure.code }, "chat completion refused");
      const publicError = toGatewayError(error);
      return errorResponse(c, deps.scrub ? publicError.withMessage(deps.scrub(publicError.message)) : publicError);
    }
  };
}
