/** mcpServers.<name>.era: its defaults per transport, and the values refused. */
import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../src/core/config/index.ts";

function problemsOf(json: unknown): { path: string; message: string }[] {
  try {
    resolveConfig(json, {});
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("the config was accepted");
}

describe("mcpServers.<name>.era", () => {
  it("probes http servers, speaks 2025-11-25 to stdio and sse servers unless told otherwise", () => {
    const config = resolveConfig(
      {
        mcpServers: {
          remote: { url: "http://127.0.0.1:1/mcp" },
          local: { command: "node" },
          old: { type: "sse", url: "http://127.0.0.1:1/sse" },
          pinned: { command: "node", era: "2026-07-28" },
          legacy: { url: "http://127.0.0.1:1/mcp", era: "2025-11-25" },
        },
      },
      {},
    );
    expect(Object.fromEntries(config.servers.map((s) => [s.name, s.era]))).toEqual({ remote: "auto", local: "2025-11-25", old: "2025-11-25", pinned: "2026-07-28", legacy: "2025-11-25" });
  });

  it("refuses an unknown era and a 2026-07-28 sse server, naming the field", () => {
    expect(problemsOf({ mcpServers: { a: { command: "node", era: "2026" } } })[0]?.path).toBe("mcpServers.a.era");
    const sse = problemsOf({ mcpServers: { b: { type: "sse", url: "http://127.0.0.1:1/sse", era: "2026-07-28" } } });
    expect(sse).toEqual([{ path: "mcpServers.b.era", message: expect.stringContaining('use type "http"') }]);
  });
});
