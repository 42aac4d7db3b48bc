/** A parsed JSON value that is an object (not null, not an array): what provider bodies and MCP messages are read as. */
export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
