import type { ToolFilter } from "../../core/config/index.ts";

function matcher(patterns: readonly string[]): (name: string) => boolean {
  // `*` is a wildcard; everything else is literal.
  const regexes = patterns.map((p) => new RegExp(`^${p.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`));
  return (name) => regexes.some((r) => r.test(name));
}

/** A server's `tools: { allow, deny }`: allow (when given) narrows, deny always wins. */
export function compileToolFilter(filter: ToolFilter): (name: string) => boolean {
  const allow = filter.allow ? matcher(filter.allow) : () => true;
  const deny = filter.deny ? matcher(filter.deny) : () => false;
  return (name) => allow(name) && !deny(name);
}
