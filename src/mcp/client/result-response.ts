/**
 * A JSON-RPC result response in its common shape, recognised without zod.
 *
 * The answer to every request the gateway forwards or makes (a `tools/call`, a list) is
 * `{"jsonrpc":"2.0","id":…,"result":{…}}`. The SDK's reader checks each event with zod three
 * times (`parseJSONRPCMessage`, then `isJSONRPCResultResponse` and `isJSONRPCErrorResponse`),
 * and zod's unions build an issue list for every branch that does not match: about 2.5% of the
 * gateway's CPU per forwarded `tools/call` (docs/performance.md). Here that shape is checked
 * directly; anything else (notifications, requests, errors, a result whose `_meta` names the
 * server, which zod may rewrite) still goes through the SDK's schemas, so what is refused, and
 * how, is unchanged. What this accepts, the SDK's `JSONRPCResultResponseSchema` accepts and
 * parses to an equal value (tested against it: test/mcp/result-response.test.ts); only the order
 * of keys differs (zod's copy puts its declared keys first), which nothing downstream reads: the
 * SDK's Protocol passes the message on, and every caller parses its `result` with a schema again.
 */
import { SERVER_INFO_META_KEY, type JSONRPCResultResponse } from "@modelcontextprotocol/client";
import { isJsonObject } from "../../core/json-object.ts";

/** `value` as a result response when it has exactly the common shape; undefined otherwise (ask the SDK). */
export function commonResultResponse(value: unknown): JSONRPCResultResponse | undefined {
  if (!isJsonObject(value) || value["jsonrpc"] !== "2.0") return undefined;
  const id = value["id"];
  // The SDK's id: a string or an integer (zod's int is a safe integer).
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  const result = value["result"];
  // zod copies a result's keys into a new object and drops an own "__proto__" (JSON.parse makes one).
  if (!isJsonObject(result) || Object.hasOwn(result, "__proto__")) return undefined;
  // The SDK's schema is strict: exactly these three keys.
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key)) keys++;
  if (keys !== 3) return undefined;
  // `_meta`'s serverInfo is checked with a fallback that may replace it: the SDK decides.
  const meta = result["_meta"];
  if (meta !== undefined && (!isJsonObject(meta) || Object.hasOwn(meta, SERVER_INFO_META_KEY) || Object.hasOwn(meta, "__proto__"))) return undefined;
  return value as JSONRPCResultResponse;
}
