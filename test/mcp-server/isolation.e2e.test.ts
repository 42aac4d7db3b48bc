/**
 * One client's business stays its own. Over HTTP, several clients (possibly of several API keys)
 * share the gateway and its upstream servers, so:
 * - roots of an HTTP session reach upstream servers only with `gateway.forwardRoots` (a server
 *   such as server-filesystem replaces its allowed folders with them, for everyone), and even
 *   then only to answer a request of that session — never one a server makes on its own or while
 *   serving /v1;
 * - what an upstream server asks (sampling, elicitation, roots) or logs outside any client's
 *   request goes to no HTTP session: requests are refused, log messages stay in the gateway's log.
 * The stdio client, the only client of its gateway, still gets all of it.
 *
 * The probe server (./probe-server.ts) is told over a control connection when to speak on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { connectHttp, connectStdio, signal, startMcpGateway, textOf, writeConfig, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { openRawSession, sseMessages, startProbeControl, type ProbeControl } from "./probe.ts";

/** A client with roots (the whole disk: what the review's attacker declares), counting what it is asked. */
function rootsClient(url: URL, asked: { roots: number; sampling: number; elicitation: number }) {
  return connectHttp(url, { name: "roots-client", capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } }, (client) => {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked.roots++;
      return { roots: [{ uri: "file:///", name: "everything" }] };
    });
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      asked.sampling++;
      return { role: "assistant", model: "client", content: { type: "text", text: "from the client" } };
    });
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked.elicitation++;
      return { action: "accept", content: { name: "client" } };
    });
  });
}

describe("over HTTP, by default", () => {
  let control: ProbeControl;
  let gw: McpGateway;

  beforeAll(async () => {
    control = await startProbeControl();
    gw = await startMcpGateway({ mcpServers: { probe: control.server() } });
  });

  afterAll(async () => {
    await gw?.close();
    await control?.close();
  });

  it("does not relay a session's roots: no roots/list_changed upstream, and roots/list is refused", async () => {
    const asked = { roots: 0, sampling: 0, elicitation: 0 };
    const { client, transport } = await rootsClient(gw.mcpUrl, asked);
    // The client declared roots at initialize: the server was not told to ask for them.
    expect(textOf(await client.callTool({ name: "probe__roots_changes", arguments: {} }))).toBe("0");
    await client.sendRootsListChanged();
    expect(textOf(await client.callTool({ name: "probe__roots_changes", arguments: {} }))).toBe("0");
    // Not even while serving the session's own call.
    const own = await client.callTool({ name: "probe__ask_roots", arguments: {} });
    expect(own.isError).toBe(true);
    expect(textOf(own)).toMatch(/gateway\.forwardRoots is off/);
    // Nor when the server asks on its own.
    expect((await control.command("roots")).error).toMatch(/outside any client request/);
    expect(asked.roots).toBe(0);
    await transport.terminateSession();
    await client.close();
  });

  it("refuses sampling and elicitation a server asks outside any client request, asking no session", async () => {
    const asked = { roots: 0, sampling: 0, elicitation: 0 };
    const { client, transport } = await rootsClient(gw.mcpUrl, asked);
    await client.ping(); // the most recently active session: it used to get these
    expect((await control.command("sample")).error).toMatch(/refused sampling\/createMessage: MCP server "probe" made it outside any client request/);
    expect((await control.command("elicit")).error).toMatch(/refused elicitation\/create/);
    expect(asked).toEqual({ roots: 0, sampling: 0, elicitation: 0 });
    await transport.terminateSession();
    await client.close();
  });

  it("sends a log message a server writes outside any client request to no session", async () => {
    const session = await openRawSession(gw.mcpUrl);
    const get = await fetch(gw.mcpUrl, { method: "GET", headers: { ...session.headers, accept: "text/event-stream" } });
    expect(get.status).toBe(200); // the session's stream for messages outside requests is open
    expect((await control.command("log")).ok).toBe("sent");
    // The probe sends resources/list_changed right after its log message, and the gateway relays
    // that to every session: whatever the session was going to get comes before it.
    const seen: string[] = [];
    for await (const message of sseMessages(get.body!)) {
      if ("method" in message) seen.push(message.method);
      if ("method" in message && message.method === "notifications/resources/list_changed") break;
    }
    expect(seen).toEqual(["notifications/resources/list_changed"]);
    await fetch(gw.mcpUrl, { method: "DELETE", headers: session.headers });
  });
});

describe("over HTTP with gateway.forwardRoots", () => {
  let control: ProbeControl;
  let upstream: ScriptedUpstream;
  let gw: McpGateway;

  beforeAll(async () => {
    control = await startProbeControl();
    upstream = await startScriptedUpstream("openai");
    gw = await startMcpGateway({
      mcpServers: { probe: control.server() },
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
      gateway: { forwardRoots: true },
    });
  });

  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    await control?.close();
  });

  it("relays a session's roots, but answers with them only that session's own requests", async () => {
    const asked = { roots: 0, sampling: 0, elicitation: 0 };
    const { client, transport } = await rootsClient(gw.mcpUrl, asked);
    expect(textOf(await client.callTool({ name: "probe__roots_changes", arguments: {} }))).toBe("1");
    expect(JSON.parse(textOf(await client.callTool({ name: "probe__ask_roots", arguments: {} })))).toEqual([{ uri: "file:///", name: "everything" }]);
    expect(asked.roots).toBe(1);
    // A roots/list the server makes on its own belongs to no session.
    expect((await control.command("roots")).error).toMatch(/refused roots\/list: MCP server "probe" made it outside any client request/);
    expect(asked.roots).toBe(1);
    await transport.terminateSession();
    await client.close();
  });

  it("never answers a roots/list made while serving /v1 with a session's roots, even while that session has a call in flight there", async () => {
    const asked = { roots: 0, sampling: 0, elicitation: 0 };
    const { client, transport } = await rootsClient(gw.mcpUrl, asked);
    const started = signal();
    const blocked = client.callTool({ name: "probe__block", arguments: {} }, CallToolResultSchema, { onprogress: () => started.resolve() });
    await started.promise; // the session's call is in flight to the probe
    upstream.script([{ calls: [{ id: "call_1", name: "probe__ask_roots", arguments: {} }] }, { text: "done" }]);
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "fake/m", messages: [{ role: "user", content: "what are your roots?" }] }),
    });
    expect(response.status).toBe(200);
    const tool = (upstream.chatRequests()[1]!.body.messages as { role: string; content: unknown }[]).find((m) => m.role === "tool");
    expect(String(tool?.content)).toMatch(/roots\/list failed: .*refused roots\/list: requests of several clients are in flight/);
    expect(asked.roots).toBe(0);
    expect((await control.command("release")).ok).toBe(1);
    expect(textOf(await blocked)).toBe("released");
    await transport.terminateSession();
    await client.close();
  });
});

describe("over stdio (the gateway's only client)", () => {
  let control: ProbeControl;
  let config: { path: string; remove(): void };

  beforeAll(async () => {
    control = await startProbeControl();
    config = writeConfig({ mcpServers: { probe: control.server() } });
  });

  afterAll(async () => {
    config?.remove();
    await control?.close();
  });

  it("relays the client's roots, and passes it what a server asks or logs outside any request", async () => {
    const logged = signal<LoggingMessageNotification["params"]>();
    const stdio = await connectStdio(config.path, { capabilities: { roots: { listChanged: true }, sampling: {} } }, (client) => {
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: "file:///tmp/project", name: "project" }] }));
      client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: "assistant", model: "client", content: { type: "text", text: "from the stdio client" } }));
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logged.resolve(n.params));
    });
    try {
      expect(textOf(await stdio.client.callTool({ name: "probe__roots_changes", arguments: {} }))).toBe("1");
      expect((await control.command("roots")).ok).toEqual([{ uri: "file:///tmp/project", name: "project" }]);
      expect((await control.command("sample")).ok).toEqual({ type: "text", text: "from the stdio client" });
      expect((await control.command("log")).ok).toBe("sent");
      expect(await logged.promise).toEqual({ level: "error", logger: "probe", data: "background log message" });
    } finally {
      await stdio.close();
    }
  });
});
