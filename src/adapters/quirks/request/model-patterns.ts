/** Model-id patterns of the quirk data: exact ids, `*` as a wildcard, case-insensitive. */

export type ModelMatcher = (model: string) => boolean;

const neverMatches: ModelMatcher = () => false;

function patternSource(pattern: string): string {
  return pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
}

/** The patterns compiled into one test; build it once (per adapter), not per request. */
export function modelMatcher(patterns: readonly string[]): ModelMatcher {
  if (patterns.length === 0) return neverMatches;
  const regexp = new RegExp(`^(?:${patterns.map(patternSource).join("|")})$`, "i");
  return (model) => regexp.test(model);
}

/** One-off check; compiles the patterns on every call (hot paths keep a modelMatcher). */
export function matchesModel(model: string, patterns: readonly string[]): boolean {
  return modelMatcher(patterns)(model);
}
