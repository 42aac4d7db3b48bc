/**
 * Where a name the gateway does not list belongs: the server whose prefix it starts with (the
 * longest non-empty prefix), else the one server exposed with `prefix: ""`. The gateway sends
 * such a call there with the prefix taken off, so that server answers it exactly as it would
 * directly (typically an `isError` "not found" result, or a tool it has not listed yet).
 */
import type { Upstream } from "./types.ts";

export function namespaceOwner(name: string, upstreams: readonly Upstream[]): { upstream: Upstream; original: string } | undefined {
  const prefixed = upstreams
    .filter((u) => u.prefix !== "" && name.length > u.prefix.length && name.startsWith(u.prefix))
    .sort((a, b) => b.prefix.length - a.prefix.length)[0];
  if (prefixed) return { upstream: prefixed, original: name.slice(prefixed.prefix.length) };
  const bare = upstreams.filter((u) => u.prefix === "");
  return bare.length === 1 ? { upstream: bare[0]!, original: name } : undefined;
}
