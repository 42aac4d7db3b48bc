// Whether a checkout's compiled dist/ is the build of its src/: bin/mcp-gateway.js runs dist/ only
// then (else the sources through tsx), and bench/profile.ts refuses to profile a stale build.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** dist/ has the CLI's entry point. */
export function isCompiled(root) {
  return existsSync(join(root, "dist", "cli", "main.js"));
}

/**
 * dist/ is compiled and its stamp (written by `npm run build`) is at least as new as every file of
 * src/; an installed package has no src/, and its dist/ is always current.
 */
export function compiledIsCurrent(root) {
  const stamp = join(root, "dist", ".build-stamp");
  const sources = join(root, "src");
  return isCompiled(root) && (!existsSync(sources) || (existsSync(stamp) && statSync(stamp).mtimeMs >= newestMtime(sources)));
}
