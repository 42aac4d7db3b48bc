/** Which build bin/mcp-gateway.js runs, and bench/profile.ts profiles: bin/build-state.js. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compiledIsCurrent, isCompiled } from "../../bin/build-state.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout with the given parts; times in seconds since the epoch. */
function checkout(parts: { dist?: boolean; stampAt?: number; sourceAt?: number }): string {
  const root = mkdtempSync(join(tmpdir(), "mcpgw-build-"));
  made.push(root);
  if (parts.dist) {
    mkdirSync(join(root, "dist", "cli"), { recursive: true });
    writeFileSync(join(root, "dist", "cli", "main.js"), "");
  }
  if (parts.stampAt !== undefined) {
    writeFileSync(join(root, "dist", ".build-stamp"), "");
    utimesSync(join(root, "dist", ".build-stamp"), parts.stampAt, parts.stampAt);
  }
  if (parts.sourceAt !== undefined) {
    mkdirSync(join(root, "src", "core"), { recursive: true });
    writeFileSync(join(root, "src", "core", "a.ts"), "");
    utimesSync(join(root, "src", "core", "a.ts"), parts.sourceAt, parts.sourceAt);
  }
  return root;
}

describe("bin/build-state.js", () => {
  it("dist/ is current when its stamp is as new as every source, and not when a source is newer", () => {
    expect(compiledIsCurrent(checkout({ dist: true, stampAt: 2_000, sourceAt: 1_000 }))).toBe(true);
    expect(compiledIsCurrent(checkout({ dist: true, stampAt: 1_000, sourceAt: 2_000 }))).toBe(false);
  });

  it("an installed package (dist/, no src/) is current; a checkout without a stamp or without dist/ is not", () => {
    expect(compiledIsCurrent(checkout({ dist: true }))).toBe(true);
    expect(compiledIsCurrent(checkout({ dist: true, sourceAt: 1_000 }))).toBe(false);
    const bare = checkout({ sourceAt: 1_000 });
    expect(isCompiled(bare)).toBe(false);
    expect(compiledIsCurrent(bare)).toBe(false);
  });
});
