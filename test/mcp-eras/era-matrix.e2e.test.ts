/**
 * The era matrix: {2025-11-25 client (SDK 1.x), 2026-07-28 client (SDK 2.x)} × {2025 upstream
 * (server-everything, and the 1.x conformance fixture for what server-everything cannot do:
 * list_changed and observing a cancellation), 2026-07-28 upstream (the SDK 2.x reference
 * server over HTTP, which the gateway probes and speaks 2026-07-28 to)}, each with tools/call,
 * an elicitation and a sampling round trip, list_changed, progress and cancellation, all through
 * one gateway's /mcp.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, everythingServer, fixtureServer, signal, startMcpGateway, textOf, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { startModernFixtureHttp, type HttpServerUnderTest } from "../conformance/run-conformance.ts";

type Result = Record<string, unknown>;
interface CallOptions {
  onprogress?: (progress: { progress: number; total?: number | undefined }) => void;
  signal?: AbortSignal;
}

/** One client of either era, as the matrix uses it. */
interface EraClient {
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<Result>;
  /** Resolves at the next notifications/prompts/list_changed. */
  promptsChanged(): Promise<void>;
  close(): Promise<void>;
}

/** What the client answers: only the fields the form asks for (each server's schema differs). */
function formAnswer(requestedSchema: unknown): Record<string, unknown> {
  const all: Record<string, unknown> = { name: "Ada", check: true, email: "ada@example.com" };
  const properties = Object.keys((requestedSchema as { properties?: object } | undefined)?.properties ?? {});
  return Object.fromEntries(properties.filter((p) => p in all).map((p) => [p, all[p]]));
}

const SAMPLED = { role: "assistant", model: "client-model", content: { type: "text", text: "answer from the client" }, stopReason: "endTurn" } as const;
const CAPABILITIES = { sampling: {}, elicitation: { form: {} } };

async function legacyClient(url: URL): Promise<EraClient> {
  let changed = signal();
  const { client } = await connectHttp(url, { capabilities: CAPABILITIES }, (c) => {
    c.setRequestHandler(ElicitRequestSchema, (request) => ({ action: "accept", content: formAnswer((request.params as { requestedSchema?: unknown }).requestedSchema) }) as never);
    c.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED);
    c.setNotificationHandler(PromptListChangedNotificationSchema, () => changed.resolve());
  });
  return {
    call: (name, args, options = {}) => client.callTool({ name, arguments: args }, CallToolResultSchema, options) as Promise<Result>,
    promptsChanged: () => changed.promise.then(() => void (changed = signal())),
    close: () => client.close(),
  };
}

async function modernClient(url: URL): Promise<EraClient> {
  let changed = signal();
  const client = new ModernClient({ name: "matrix-modern", version: "1.0.0" }, { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  client.setRequestHandler("elicitation/create", (request) => ({ action: "accept", content: formAnswer((request.params as { requestedSchema?: unknown }).requestedSchema) }) as never);
  client.setRequestHandler("sampling/createMessage", () => SAMPLED);
  client.setNotificationHandler("notifications/prompts/list_changed", () => changed.resolve());
  await client.connect(new ModernTransport(url));
  const subscription = await client.listen({ promptsListChanged: true });
  return {
    call: (name, args, options = {}) => client.callTool({ name, arguments: args }, options) as Promise<Result>,
    promptsChanged: () => changed.promise.then(() => void (changed = signal())),
    close: async () => {
      await subscription.close();
      await client.close();
    },
  };
}

interface Upstream {
  name: string;
  call: [string, Record<string, unknown>, RegExp];
  elicit: [string, RegExp];
  sample: [string, Record<string, unknown>, RegExp];
  progress: [string, Record<string, unknown>];
  /** A tool whose call makes its server send prompts/list_changed (`n` keeps names apart). */
  changePrompts: (n: number) => [string, Record<string, unknown>];
  /** A tool that waits to be cancelled, and one that returns how it was. */
  cancel: [string, string];
}

const upstreams: Upstream[] = [
  {
    name: "2025-11-25 upstream",
    call: ["everything__echo", { message: "hi" }, /^Echo: hi$/],
    elicit: ["everything__trigger-elicitation-request", /- Name: Ada\n- Agreed to terms: true\n- Email: ada@example\.com/],
    sample: ["everything__trigger-sampling-request", { prompt: "hello", maxTokens: 50 }, /answer from the client/],
    progress: ["everything__trigger-long-running-operation", { duration: 0.2, steps: 2 }],
    changePrompts: (n) => ["legacyfix__probe_add", { kind: "prompt", name: `added_${n}` }],
    cancel: ["legacyfix__probe_wait_for_cancel", "legacyfix__probe_cancelled"],
  },
  {
    name: "2026-07-28 upstream",
    call: ["modern__test_simple_text", {}, /./],
    elicit: ["modern__test_input_required_result_elicitation", /^Hello, Ada!$/],
    sample: ["modern__test_input_required_result_sampling", {}, /^Sampling response: answer from the client$/],
    progress: ["modern__test_tool_with_progress", {}],
    changePrompts: () => ["modern__test_trigger_prompt_change", {}],
    cancel: ["modern__probe_wait_for_cancel", "modern__probe_cancelled"],
  },
];

const clients: { name: string; connect: (url: URL) => Promise<EraClient> }[] = [
  { name: "a 2025-11-25 client", connect: legacyClient },
  { name: "a 2026-07-28 client", connect: modernClient },
];

let fixture: HttpServerUnderTest;
let gateway: McpGateway;
let changes = 0;

beforeAll(async () => {
  fixture = await startModernFixtureHttp();
  gateway = await startMcpGateway({
    mcpServers: { everything: everythingServer(), legacyfix: fixtureServer(), modern: { type: "http", url: fixture.url } },
  });
  expect(gateway.gateway.pool.connection("modern")?.upstream?.era).toBe("modern");
  expect(gateway.gateway.pool.connection("everything")?.upstream?.era).toBe("legacy");
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await fixture?.stop();
});

describe.each(clients)("$name", ({ connect }) => {
  let client: EraClient;
  beforeAll(async () => {
    client = await connect(gateway.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
  });

  describe.each(upstreams)("with a $name", (upstream) => {
    it("calls a tool", async () => {
      const [name, args, expected] = upstream.call;
      expect(textOf(await client.call(name, args))).toMatch(expected);
    });

    it("answers the server's elicitation", async () => {
      const [name, expected] = upstream.elicit;
      expect(textOf(await client.call(name, {}))).toMatch(expected);
    });

    it("answers the server's sampling request", async () => {
      const [name, args, expected] = upstream.sample;
      expect(textOf(await client.call(name, args))).toMatch(expected);
    });

    it("gets the server's prompts list_changed", async () => {
      const changed = client.promptsChanged();
      const [name, args] = upstream.changePrompts(++changes);
      await client.call(name, args);
      await changed;
    });

    it("gets the server's progress before the result", async () => {
      const [name, args] = upstream.progress;
      const seen: number[] = [];
      const result = await client.call(name, args, { onprogress: (p) => seen.push(p.progress) });
      expect(result.isError).not.toBe(true);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
    });

    it("cancels the server's call", async () => {
      const [wait, cancelled] = upstream.cancel;
      const controller = new AbortController();
      // The first progress notification proves the call is running upstream.
      const call = client.call(wait, {}, { signal: controller.signal, onprogress: () => controller.abort("user pressed stop") });
      await expect(call).rejects.toThrow();
      // Resolves only once the upstream tool saw its call cancelled.
      expect(textOf(await client.call(cancelled, {}))).toMatch(/^cancelled: /);
    });
  });
});

describe("a 2026-07-28 client's resource subscriptions", () => {
  it("get the updates of a 2025 upstream's resource on its listen stream, for as long as it listens", async () => {
    const client = new ModernClient({ name: "matrix-listen", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernTransport(gateway.mcpUrl));
    const updated = signal<string>();
    client.setNotificationHandler("notifications/resources/updated", (n) => updated.resolve(n.params.uri));
    const subscription = await client.listen({ resourceSubscriptions: ["test://static-text"] });
    // The gateway subscribed upstream for the stream: the fixture's touch reaches the client.
    await client.callTool({ name: "legacyfix__probe_touch", arguments: { uri: "test://static-text" } });
    expect(await updated.promise).toBe("test://static-text");
    await subscription.close();
    await client.close();
  });
});
