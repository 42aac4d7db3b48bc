#!/usr/bin/env node
// Runs the compiled dist/ when it is at least as new as src/ (built by `npm run build`, which
// `npm install` runs), else the TypeScript sources through tsx. Compiled, the gateway starts
// faster and uses ~70 MB less memory; the fallback keeps an edited checkout always current.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "dist", ".build-stamp");

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const compiledIsCurrent = existsSync(stamp) && statSync(stamp).mtimeMs >= newestMtime(join(root, "src"));
if (compiledIsCurrent && process.env.MCP_GATEWAY_FROM_SOURCE !== "1") {
  await import("../dist/cli/main.js");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
