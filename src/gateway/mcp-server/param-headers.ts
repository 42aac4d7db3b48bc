/**
 * SEP-2243 (2026-07-28 Streamable HTTP): a tool whose inputSchema marks a property
 * `x-mcp-header: "Name"` is called with an `Mcp-Param-Name` header mirroring that argument, and
 * the server MUST refuse a call whose header is missing, undecodable or disagrees with the body
 * (HTTP 400, -32020). The gateway lists upstream tools with their declarations, so it is that
 * server for its clients. The SDK runs this check only for tools registered on its McpServer and
 * does not export it: the same rules are written out here, with the SDK's messages.
 */

/** The JSON-RPC code of a header that disagrees with the body (HeaderMismatch). */
export const HEADER_MISMATCH = -32020;

interface Declaration {
  /** The argument's path through `properties`. */
  path: string[];
  header: string;
  type: string | undefined;
}

/**
 * The `x-mcp-header` declarations of an inputSchema: only on properties reached through a chain
 * of `properties` (the spec allows them nowhere else; a client leaves a tool declaring one
 * elsewhere out of its list, so it is never called).
 */
export function headerDeclarations(schema: unknown, path: string[] = []): Declaration[] {
  if (schema === null || typeof schema !== "object") return [];
  const node = schema as Record<string, unknown>;
  const found: Declaration[] = [];
  const header = node["x-mcp-header"];
  if (path.length > 0 && typeof header === "string" && header.length > 0) {
    found.push({ path, header, type: typeof node.type === "string" ? node.type : undefined });
  }
  const properties = node.properties;
  if (properties !== null && typeof properties === "object") {
    for (const [key, child] of Object.entries(properties)) found.push(...headerDeclarations(child, [...path, key]));
  }
  return found;
}

/** An argument as its header carries it (strings as they are, numbers in decimal, booleans in lowercase); undefined: no header. */
function headerText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
/** Canonical Base64 (padding included): anything else in the sentinel is refused, not guessed at. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A header's value: `=?base64?…?=` decoded as UTF-8, else literal; undefined when that Base64 is invalid. */
function decodeHeader(value: string): string | undefined {
  const sentinel = SENTINEL.exec(value);
  if (!sentinel) return value;
  const payload = sentinel[1]!;
  if (!BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(payload, "base64"));
  } catch {
    return undefined;
  }
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * Why a call's `Mcp-Param-*` headers do not match its arguments, or undefined when they do. An
 * argument that is absent or null needs no header (one sent anyway is ignored); numbers compare
 * by value (`42.0` is `42`).
 */
export function paramHeaderMismatch(declarations: readonly Declaration[], args: unknown, headers: Headers): string | undefined {
  for (const { path, header, type } of declarations) {
    const value = valueAt(args, path);
    const expected = value === undefined || value === null ? undefined : headerText(value);
    if (expected === undefined) continue;
    const name = `Mcp-Param-${header}`;
    const sent = headers.get(name);
    const where = `${path.join(".")}=${JSON.stringify(value)}`;
    if (sent === null) return `the body carries ${where} but the ${name} header is absent`;
    const decoded = decodeHeader(sent);
    if (decoded === undefined) return `the ${name} header carries an invalid Base64 sentinel value`;
    const numeric = (type === "integer" || type === "number") && typeof value === "number" && DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== expected) return `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}`;
  }
  return undefined;
}

/** The answer to a call refused for its headers: HTTP 400 with the JSON-RPC error, as the SDK answers one. */
export function headerMismatchResponse(id: unknown, mismatch: string): Response {
  const error = { code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${mismatch}` };
  const validId = typeof id === "string" || typeof id === "number" ? id : null;
  return Response.json({ jsonrpc: "2.0", id: validId, error }, { status: 400 });
}
