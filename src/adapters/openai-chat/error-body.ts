/**
 * Error bodies in the `{ "error": { message, type, code, param } }` shape the SDK reads. Other
 * shapes are common among compatible servers, and the SDK would reduce them to
 * "400 status code (no body)":
 * - Mistral, vLLM: the error object at the top level, `{ "object": "error", "message", "type", "code" }`;
 * - Gemini's compatible endpoint: the OpenAI shape wrapped in an array, `[{ "error": {…} }]`;
 * - FastAPI validation (Mistral 422): `{ "detail": [{ "type", "loc", "msg" }] }`;
 * - `{ "error": "text" }`.
 */
import { isJsonObject } from "../../core/json-object.ts";

/** FastAPI's validation details as one line: `body.messages.1.user.name: Extra inputs are not permitted (extra_forbidden)`. */
function detailMessage(detail: unknown): string {
  if (!Array.isArray(detail)) return typeof detail === "string" ? detail : JSON.stringify(detail);
  return detail
    .map((item: unknown) => {
      if (!isJsonObject(item)) return JSON.stringify(item);
      const location = Array.isArray(item["loc"]) ? `${item["loc"].join(".")}: ` : "";
      const type = typeof item["type"] === "string" ? ` (${item["type"]})` : "";
      return `${location}${String(item["msg"] ?? "")}${type}`;
    })
    .join("; ");
}

export function normalizeErrorBody(body: unknown): object {
  if (Array.isArray(body) && body.length === 1) return normalizeErrorBody(body[0]);
  if (!isJsonObject(body)) return body === null || body === undefined ? {} : { error: { message: String(body) } };
  const error = body["error"];
  if (isJsonObject(error)) return body;
  if (typeof error === "string") return { ...body, error: { message: error } };
  if (typeof body["message"] === "string") return { error: body };
  if (body["detail"] !== undefined) return { error: { message: detailMessage(body["detail"]) } };
  return body;
}
