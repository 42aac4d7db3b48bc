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

describe("the batched log destination", () => {
  it("writes a turn's lines together, in order, once the turn is over", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "log-dest-")), "log");
    const fd = openSync(file, "w");
    try {
      const destination = batchedDestination(fd);
      destination.write("one\n");
      destination.write("two\n");
      destination.write("three\n");
      expect(readFileSync(file, "utf8")).toBe("");
      await nextCheckPhase();
      expect(readFileSync(file, "utf8")).toBe("one\ntwo\nthree\n");
    } finally {
      closeSync(fd);
    }
  });

  it("writes what is buffered when the logger is flushed, and says when", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "log-dest-")), "log");
    const fd = openSync(file, "w");
    try {
      const destination = batchedDestination(fd);
      destination.write("now\n");
      await new Promise<void>((resolve) => destination.flush(() => resolve()));
      expect(readFileSync(file, "utf8")).toBe("now\n");
    } finally {
      closeSync(fd);
    }
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
