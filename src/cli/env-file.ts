import { existsSync } from "node:fs";
import { resolve } from "node:path";

/**
 * Loads `.env` from the folder the command runs in, when there is one, into process.env with
 * Node's own parser (`process.loadEnvFile`, the format of `node --env-file`). A variable that is
 * already set, even to "", keeps its value. It runs before the config is read, so its variables
 * fill the config's `${VAR}`s. Returns the file loaded, if any.
 */
export function loadDotEnv(folder: string = process.cwd()): string | undefined {
  const path = resolve(folder, ".env");
  if (!existsSync(path)) return undefined;
  try {
    process.loadEnvFile(path);
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  return path;
}
