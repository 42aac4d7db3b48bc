/** Model-id patterns of the quirk data: exact ids, `*` as a wildcard, case-insensitive. */

function toRegExp(pattern: string): RegExp {
  const body = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${body}$`, "i");
}

export function matchesModel(model: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => toRegExp(pattern).test(model));
}
