import type { Context } from "hono";
import { GatewayError } from "../../../core/index.ts";
import type { ChatDeps } from "../../chat/context.ts";
import { prepareChat } from "../../chat/prepare.ts";
import { completeChat } from "../../chat/respond-json.ts";
import { streamChat } from "../../chat/respond-sse.ts";
import { errorResponse } from "../errors.ts";

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch (error) {
    throw GatewayError.invalidRequest(`The body is not valid JSON: ${(error as Error).message}`, undefined, "invalid_json");
  }
}

export function chatCompletionsHandler(deps: ChatDeps) {
  return async (c: Context): Promise<Response> => {
    const requestId = c.get("requestId") as string;
    const log = deps.logger.child({ requestId });
    const started = performance.now();
    // Aborted when the client disconnects: cancels the upstream call and pending MCP calls.
    const controller = new AbortController();
    const clientSignal = c.req.raw.signal;
    const onClientGone = () => controller.abort(new GatewayError("the client closed the connection", { status: 499, type: "api_error", code: "client_closed" }));
    clientSignal.addEventListener("abort", onClientGone, { once: true });
    try {
      const prepared = await prepareChat(await readJson(c), c.req.header("x-mcp-servers"), deps);
      const logFields = { model: prepared.model.requested, provider: prepared.model.provider.name, stream: prepared.stream };
      if (prepared.stream) {
        const handle = await streamChat(prepared, deps, controller, { "x-request-id": requestId });
        void handle.finished.then((outcome) => {
          clientSignal.removeEventListener("abort", onClientGone);
          log.info({ ...logFields, ms: Math.round(performance.now() - started), stop: outcome?.stopReason ?? "aborted_or_failed", turns: outcome?.turns, usage: outcome?.usage }, "chat completion streamed");
        });
        return handle.response;
      }
      const { completion, outcome } = await completeChat(prepared, deps, controller.signal);
      clientSignal.removeEventListener("abort", onClientGone);
      log.info({ ...logFields, ms: Math.round(performance.now() - started), stop: outcome.stopReason, turns: outcome.turns, tools: outcome.tools.length, usage: outcome.usage }, "chat completion");
      return c.json(completion, 200, { "x-mcp-gateway-stop-reason": outcome.stopReason });
    } catch (error) {
      clientSignal.removeEventListener("abort", onClientGone);
      const failure = error instanceof GatewayError ? error : undefined;
      if (!failure || failure.status >= 500) log.error({ err: error instanceof Error ? error.message : String(error) }, "chat completion failed");
      else log.info({ status: failure.status, code: failure.code }, "chat completion refused");
      return errorResponse(c, error);
    }
  };
}
