/**
 * The batched log destination: a turn's lines leave together, in order, in the check phase; what
 * is left at exit is written; a reader that has gone never keeps the process from exiting.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { batchedDestination } from "../../src/core/log-destination.ts";
import { root } from "../helpers/serve-process.ts";

const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A script run with tsx in a child process, its stderr piped to `stdio[2]`. */
function runScript(script: string, stderr: "pipe" | "closed") {
  const program = `import { batchedDestination } from ${JSON.stringify(join(root, "src/core/log-destination.ts"))};\n${script}`;
  // `head -c 0` reads nothing and exits: the pipe's reader is gone (pipefail: the status is node's).
  const shell = stderr === "closed" ? `set -o pipefail; node --import tsx --input-type=module -e "$0" 2>&1 | head -c 0` : `node --import tsx --input-type=module -e "$0"`;
  return spawnSync("bash", ["-c", shell, program], { cwd: root, encoding: "utf8", timeout: 30_000 });
}

/** A destination on a fresh file, and what the file holds so far. */
async function withLogFile(check: (destination: ReturnType<typeof batchedDestination>, written: () => string) => Promise<void>): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), "log-dest-")), "log");
  const fd = openSync(file, "w");
  try {
    await check(batchedDestination(fd), () => readFileSync(file, "utf8"));
  } finally {
    closeSync(fd);
  }
}

describe("the batched log destination", () => {
  it("writes a turn's lines together, in order, once the turn is over", async () => {
    await withLogFile(async (destination, written) => {
      destination.write("one\n");
      destination.write("two\n");
      destination.write("three\n");
      expect(written()).toBe("");
      await nextCheckPhase();
      expect(written()).toBe("one\ntwo\nthree\n");
    });
  });

  it("writes what is buffered when the logger is flushed, and says when", async () => {
    await withLogFile(async (destination, written) => {
      destination.write("now\n");
      await new Promise<void>((resolve) => destination.flush(() => resolve()));
      expect(written()).toBe("now\n");
    });
  });

  it("writes what is left when the process exits", () => {
    const result = runScript(`batchedDestination(2).write("last words\\n"); process.exit(0);`, "pipe");
    expect(result.status).toBe(0);
    expect(result.stderr).toBe("last words\n");
  });

  it("exits when the reader of its pipe has gone (EPIPE), with lines still to write", () => {
    // 1 MB of lines into a pipe whose reader reads nothing and exits: more than the pipe holds, so
    // the writes end in EPIPE whenever the reader goes; then the exit's flush must not hang.
    const result = runScript(`const d = batchedDestination(2); for (let i = 0; i < 32768; i++) d.write("x".repeat(31) + "\\n"); d.write("tail\\n"); process.exit(0);`, "closed");
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
  });
});
