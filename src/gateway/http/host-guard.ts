import type { MiddlewareHandler } from "hono";
import type { GatewayConfig } from "../../core/config/index.ts";
import { GatewayError } from "../../core/index.ts";
import { hostAllowed, originAllowed } from "../mcp-server/http.ts";
import { checkLayer, type Check } from "./admission.ts";
import { errorResponse } from "./errors.ts";

/**
 * DNS-rebinding protection for the OpenAI routes when no API key guards them: a web page that
 * rebinds its name to 127.0.0.1 could otherwise drive the gateway (and its MCP tools) from the
 * user's browser. Only loopback Host/Origin values pass, plus the configured allow-lists.
 */
export function hostGuard(config: GatewayConfig): MiddlewareHandler {
  return checkLayer(hostCheck(config));
}

/** hostGuard's check alone, to run inside another layer (./admission.ts). */
export function hostCheck(config: GatewayConfig): Check {
  return (c) => {
    const host = c.req.header("host");
    const origin = c.req.header("origin");
    if (!hostAllowed(host, config.gateway.allowedHosts)) {
      return errorResponse(c, new GatewayError(`Host "${host ?? ""}" is not allowed (add it to gateway.allowedHosts, or set gateway.apiKeys)`, { status: 403, type: "permission_error", code: "host_not_allowed" }));
    }
    // An origin allowed for CORS is one the operator trusts to call the gateway from a browser.
    if (!originAllowed(origin, [...config.gateway.allowedOrigins, ...config.gateway.corsOrigins])) {
      return errorResponse(c, new GatewayError(`Origin "${origin}" is not allowed (add it to gateway.allowedOrigins, or set gateway.apiKeys)`, { status: 403, type: "permission_error", code: "origin_not_allowed" }));
    }
    return undefined;
  };
}
