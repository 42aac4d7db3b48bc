/** A parsed JSON value that is an object (not null, not an array): what provider bodies and MCP messages are read as. */
export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `target[key] = value` as a spread or JSON.parse puts it: an own "__proto__" key (a client's
 * body may carry one) stays a plain field instead of changing the target's prototype.
 */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
