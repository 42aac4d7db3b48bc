/** The small pieces of the MCP server surface: resumption store, Host/Origin rules, namespaces, sampling conversion. */
import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError, resolveConfig } from "../../src/core/config/index.ts";
import { MemoryEventStore } from "../../src/gateway/mcp-server/event-store.ts";
import { hostAllowed, hostName, originAllowed } from "../../src/gateway/mcp-server/http.ts";
import { namespaceOwner } from "../../src/gateway/mcp-server/namespace.ts";
import { samplingToChatRequest } from "../../src/gateway/mcp-server/sampling.ts";
import type { Upstream } from "../../src/gateway/mcp-server/types.ts";

const message = (n: number): JSONRPCMessage => ({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } });

describe("MemoryEventStore", () => {
  it("replays the events of one stream after the given id, in order", async () => {
    const store = new MemoryEventStore();
    const a1 = await store.storeEvent("a", message(1));
    await store.storeEvent("b", message(2));
    await store.storeEvent("a", message(3));
    await store.storeEvent("a", message(4));
    const sent: unknown[] = [];
    const stream = await store.replayEventsAfter(a1, { send: async (_id, m) => void sent.push((m as unknown as { params: { data: number } }).params.data) });
    expect(stream).toBe("a");
    expect(sent).toEqual([3, 4]);
    expect(await store.getStreamIdForEventId(a1)).toBe("a");
  });

  it("keeps only the newest events", async () => {
    const store = new MemoryEventStore(3);
    const first = await store.storeEvent("s", message(1));
    for (let i = 2; i <= 5; i++) await store.storeEvent("s", message(i));
    expect(store.size).toBe(3);
    const sent: number[] = [];
    await store.replayEventsAfter(first, { send: async (_id, m) => void sent.push((m as unknown as { params: { data: number } }).params.data) });
    expect(sent).toEqual([3, 4, 5]);
  });

  it("skips priming events (no message) when replaying", async () => {
    const store = new MemoryEventStore();
    const priming = await store.storeEvent("s", {} as JSONRPCMessage);
    await store.storeEvent("s", {} as JSONRPCMessage);
    await store.storeEvent("s", message(7));
    const sent: unknown[] = [];
    await store.replayEventsAfter(priming, { send: async (_id, m) => void sent.push(m) });
    expect(sent).toEqual([message(7)]);
  });
});

describe("DNS-rebinding rules", () => {
  it("takes the host name out of a Host header", () => {
    expect(hostName("LocalHost:4000")).toBe("localhost");
    expect(hostName("[::1]:4000")).toBe("[::1]");
    expect(hostName("127.0.0.1")).toBe("127.0.0.1");
  });

  it("accepts loopback hosts on any port, configured ones, and nothing else", () => {
    for (const host of ["localhost", "localhost:4000", "127.0.0.1:1", "[::1]:4000"]) expect(hostAllowed(host, [])).toBe(true);
    for (const host of ["evil.example.com", "127.0.0.1.evil.com:80", "localhost.evil.com", undefined]) expect(hostAllowed(host, [])).toBe(false);
    expect(hostAllowed("mcp.example.com:443", ["mcp.example.com"])).toBe(true);
    expect(hostAllowed("mcp.example.com:8443", ["mcp.example.com:443"])).toBe(false);
    expect(hostAllowed("anything", ["*"])).toBe(true);
  });

  it("accepts a missing Origin, loopback origins and configured ones", () => {
    expect(originAllowed(undefined, [])).toBe(true);
    expect(originAllowed("http://localhost:3000", [])).toBe(true);
    expect(originAllowed("https://127.0.0.1", [])).toBe(true);
    expect(originAllowed("http://evil.example.com", [])).toBe(false);
    expect(originAllowed("null", [])).toBe(false);
    expect(originAllowed("https://app.example.com", ["https://app.example.com/"])).toBe(true);
    expect(originAllowed("https://app.example.com:8443", ["https://app.example.com"])).toBe(false);
  });
});

describe("namespaceOwner", () => {
  const upstream = (name: string, prefix: string) => ({ name, prefix }) as Upstream;

  it("finds the server by the longest prefix, else the one bare server", () => {
    const list = [upstream("a", "a__"), upstream("ab", "a__b__"), upstream("bare", "")];
    expect(namespaceOwner("a__b__tool", list)).toMatchObject({ upstream: { name: "ab" }, original: "tool" });
    expect(namespaceOwner("a__tool", list)).toMatchObject({ upstream: { name: "a" }, original: "tool" });
    expect(namespaceOwner("tool", list)).toMatchObject({ upstream: { name: "bare" }, original: "tool" });
    expect(namespaceOwner("tool", [upstream("x", ""), upstream("y", "")])).toBeUndefined();
    expect(namespaceOwner("tool", [upstream("a", "a__")])).toBeUndefined();
  });
});

describe("sampling as a neutral request", () => {
  it("maps the system prompt, messages, limits and stop sequences", () => {
    const request = samplingToChatRequest(
      {
        systemPrompt: "Be terse.",
        messages: [
          { role: "user", content: { type: "text", text: "hi" } },
          { role: "assistant", content: { type: "text", text: "hello" } },
          { role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
        ],
        maxTokens: 20,
        temperature: 0.2,
        stopSequences: ["END"],
      },
      "m-1",
    );
    expect(request).toEqual({
      model: "m-1",
      messages: [
        { role: "system", content: [{ type: "text", text: "Be terse." }] },
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "hello" }] },
        { role: "user", content: [{ type: "image", source: { kind: "base64", mediaType: "image/png", data: "AAAA" } }] },
      ],
      maxTokens: 20,
      temperature: 0.2,
      stop: ["END"],
    });
  });

  it("refuses sampling with tools", () => {
    expect(() => samplingToChatRequest({ messages: [], maxTokens: 1, tools: [{ name: "t", inputSchema: { type: "object" } }] }, "m")).toThrow(/tools/);
  });
});

describe("the MCP server's settings", () => {
  it("defaults forwardRoots to off and maxMcpSessions to 256, and suggests them for a typo", () => {
    const { gateway } = resolveConfig({}, {});
    expect(gateway.forwardRoots).toBe(false);
    expect(gateway.maxMcpSessions).toBe(256);
    expect(resolveConfig({ gateway: { forwardRoots: true, maxMcpSessions: 3 } }, {}).gateway).toMatchObject({ forwardRoots: true, maxMcpSessions: 3 });
    let error: unknown;
    try {
      resolveConfig({ gateway: { forwardRoot: true, maxMcpSession: 1 } }, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual(
      expect.arrayContaining([
        { path: "gateway.forwardRoot", message: 'unknown key "forwardRoot" (did you mean "forwardRoots"?)' },
        { path: "gateway.maxMcpSession", message: 'unknown key "maxMcpSession" (did you mean "maxMcpSessions"?)' },
      ]),
    );
    expect(() => resolveConfig({ gateway: { maxMcpSessions: 0 } }, {})).toThrow(/gateway\.maxMcpSessions/);
  });
});
