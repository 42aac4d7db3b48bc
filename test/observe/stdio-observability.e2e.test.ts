/**
 * `mcp-gateway stdio` has no HTTP port, so nothing could read `/metrics` or the web view: it keeps
 * neither. In particular it starts no event-loop delay monitor (prom-client's default metrics
 * sample every 10 ms, which woke an idle desktop client's gateway a hundred times a second).
 * `serve`, which answers `/metrics`, still starts it. Checked on both commands as users run them,
 * with a preload that logs every monitor the process starts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectStdio, fixtureServer, textOf, writeConfig } from "../helpers/mcp-gateway-harness.ts";
import { root, startServe } from "../helpers/serve-process.ts";
import { createGateway } from "../../src/gateway/runtime.ts";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpgw-loop-monitor-"));
const preload = `--require ${JSON.stringify(join(root, "test", "helpers", "loop-monitor-log.cjs"))}`;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The monitors a process started (one line each), from its log. */
const monitors = (log: string): string[] => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((line) => line !== "") : []);

describe("the event-loop delay monitor of the process metrics", () => {
  it("runs in `serve`, whose /metrics reports it", async () => {
    const log = join(dir, "serve.log");
    const config = writeConfig({ mcpServers: {} });
    const gateway = await startServe(config.path, ["--port", "0"], { env: { LOOP_MONITOR_LOG: log, NODE_OPTIONS: preload } });
    try {
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(metrics).toContain("nodejs_eventloop_lag_p99_seconds");
      expect(monitors(log)).toHaveLength(1);
    } finally {
      gateway.kill();
      await gateway.exited;
      config.remove();
    }
  });

  it("is not started by `stdio`, which still serves its client", async () => {
    const log = join(dir, "stdio.log");
    const config = writeConfig({ mcpServers: { fixture: fixtureServer() } });
    try {
      const gateway = await connectStdio(config.path, { env: { LOOP_MONITOR_LOG: log, NODE_OPTIONS: preload } });
      expect(textOf(await gateway.client.callTool({ name: "fixture__test_simple_text", arguments: {} }))).toBe("This is a simple text response for testing.");
      await gateway.close();
      expect(gateway.stderr()).toContain('"reason":"stdin closed"');
      expect(monitors(log)).toEqual([]);
    } finally {
      config.remove();
    }
  });
});

describe("createGateway without HTTP endpoints (`http: false`)", () => {
  it("keeps no metrics and no recent requests, whatever the config asks", async () => {
    const config = resolveConfig({ mcpServers: {}, gateway: { observability: { metrics: true, ui: true, recentRequests: 50, captureContent: false } } }, {});
    const served = await createGateway(config, { logger: silentLogger() });
    const stdio = await createGateway(config, { logger: silentLogger(), http: false });
    try {
      expect(served.observability.metrics).toBeDefined();
      expect(served.observability.ring).toBeDefined();
      expect(stdio.observability.metrics).toBeUndefined();
      expect(stdio.observability.ring).toBeUndefined();
    } finally {
      await Promise.all([served.close(), stdio.close()]);
    }
  });
});
