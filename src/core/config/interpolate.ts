/**
 * `${VAR}` (and `${VAR:-default}`) replaced from the environment in every string of the
 * config. An unset variable does not fail loading: it is recorded with its JSON path, so that
 * e.g. a provider whose key is unset is reported as unavailable (naming the variable to set).
 */
import { formatJsonPath } from "../json-path.ts";

export interface MissingVariable {
  variable: string;
  /** JSON path of the string that referenced it. */
  path: string;
  /** The same path as keys: what to match on (`mcpServers["a.b"]` is `["mcpServers", "a.b"]`). */
  keys: PropertyKey[];
}

const pattern = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function interpolateEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  missing: MissingVariable[] = [],
  path: PropertyKey[] = [],
  /** Collects every value taken from the environment: they are treated as secrets in logs. */
  substituted: Set<string> = new Set(),
): unknown {
  if (typeof value === "string") {
    return value.replace(pattern, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") {
        substituted.add(found);
        return found;
      }
      if (fallback !== undefined) return fallback;
      missing.push({ variable: name, path: formatJsonPath(path), keys: path });
      return "";
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolateEnv(item, env, missing, [...path, i], substituted));
  if (typeof value === "object" && value !== null) {
    // fromEntries defines own properties, so a "__proto__" key stays a key, not a prototype.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateEnv(item, env, missing, [...path, key], substituted)]),
    );
  }
  return value;
}
