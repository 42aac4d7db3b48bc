export * from "./types.ts";
export { ConfigError, loadConfigFile, parseConfigText, resolveConfig, resolveConfigPath } from "./load.ts";
export type { MissingVariable } from "./interpolate.ts";
export type { FieldProblem } from "../zod-issues.ts";
