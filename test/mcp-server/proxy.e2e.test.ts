/**
 * The gateway as an MCP server, over both transports (Streamable HTTP /mcp in-process, and
 * `node bin/mcp-gateway.js stdio` as a child process), with the MCP SDK Client, fronting the real
 * server-everything and the conformance fixture server, and a scripted fake OpenAI upstream for
 * the `chat` tool. Everything here is a faithful-proxy property: what a client sees through the
 * gateway is what it would see talking to each server directly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type JSONRPCMessage,
  type LoggingMessageNotification,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import {
  connectHttp,
  connectStdio,
  everythingServer,
  fixtureServer,
  signal,
  startMcpGateway,
  textOf,
  writeConfig,
  type McpGateway,
  type StdioGateway,
} from "../helpers/mcp-gateway-harness.ts";

interface Responders {
  sampling: (request: CreateMessageRequest) => unknown;
  elicitation: (request: ElicitRequest) => unknown;
  roots: () => unknown;
}

const responders: Responders = {
  sampling: () => ({ role: "assistant", model: "client-model", content: { type: "text", text: "answer from the client" }, stopReason: "endTurn" }),
  elicitation: () => ({ action: "accept", content: { name: "Ada", check: true, email: "ada@example.com" } }),
  roots: () => ({ roots: [{ uri: "file:///tmp/project", name: "project" }] }),
};

const capabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
const logs: LoggingMessageNotification["params"][] = [];
/** Every message the client received, in order (see ClientOptions.tap). */
const wire: JSONRPCMessage[] = [];
const tap = (message: JSONRPCMessage) => void wire.push(message);

type NotificationSchema = typeof ToolListChangedNotificationSchema | typeof PromptListChangedNotificationSchema | typeof ResourceListChangedNotificationSchema;

/** Counts a client's notifications of one kind; `after(n)` resolves once more than n came. */
function counter(client: Client, schema: NotificationSchema) {
  let count = 0;
  const waiters: (() => void)[] = [];
  client.setNotificationHandler(schema, () => {
    count++;
    for (const wake of waiters.splice(0)) wake();
  });
  const after = async (n: number): Promise<void> => {
    while (count <= n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return {
    get count() {
      return count;
    },
    after,
  };
}

/** Progress notifications on the wire since `wire` was cleared, in order. */
function progressOnWire(): Progress[] {
  return wire.flatMap((m) => ("method" in m && m.method === "notifications/progress" ? [m.params as Progress] : []));
}

function setup(client: Client): void {
  client.setRequestHandler(CreateMessageRequestSchema, (request) => responders.sampling(request) as never);
  client.setRequestHandler(ElicitRequestSchema, (request) => responders.elicitation(request) as never);
  client.setRequestHandler(ListRootsRequestSchema, () => responders.roots() as never);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
}

let upstream: ScriptedUpstream;

function gatewayConfig(): Record<string, unknown> {
  return {
    mcpServers: { everything: everythingServer(), fixture: fixtureServer() },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    // Roots are relayed over stdio always, over HTTP only with forwardRoots (see isolation.e2e.test.ts).
    gateway: { maxIterations: 3, forwardRoots: true },
  };
}

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
});

afterAll(async () => {
  await upstream?.close();
});

interface Transport {
  name: string;
  start(): Promise<{ client: Client; stop(): Promise<void>; stdio?: StdioGateway }>;
}

const transports: Transport[] = [
  {
    name: "Streamable HTTP /mcp",
    async start() {
      const gw: McpGateway = await startMcpGateway(gatewayConfig());
      const { client } = await connectHttp(gw.mcpUrl, { capabilities, tap }, setup);
      return {
        client,
        async stop() {
          await client.close();
          await gw.close();
        },
      };
    },
  },
  {
    name: "stdio (mcp-gateway stdio)",
    async start() {
      const config = writeConfig(gatewayConfig());
      const stdio = await connectStdio(config.path, { capabilities, tap }, setup);
      return {
        client: stdio.client,
        stdio,
        async stop() {
          await stdio.close();
          config.remove();
        },
      };
    },
  },
];

describe.each(transports)("the gateway as an MCP server over $name", (transport) => {
  let client: Client;
  let running: Awaited<ReturnType<Transport["start"]>>;

  beforeAll(async () => {
    running = await transport.start();
    client = running.client;
  });

  afterAll(async () => {
    await running?.stop();
  });

  describe("tools", () => {
    it("lists every upstream tool under its namespaced name with title, schemas, annotations and _meta kept", async () => {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get("fixture__probe_structured")).toEqual({
        name: "fixture__probe_structured",
        title: "Structured probe",
        description: "Returns structured content matching its output schema",
        inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        outputSchema: { type: "object", properties: { doubled: { type: "integer" } }, required: ["doubled"] },
        annotations: { readOnlyHint: true, idempotentHint: true },
        _meta: { "example.com/probe": true },
      });
      expect(byName.get("fixture__json_schema_2020_12_tool")?.inputSchema).toMatchObject({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $defs: { address: { type: "object" } },
        additionalProperties: false,
      });
      const longRunning = byName.get("everything__trigger-long-running-operation");
      expect(longRunning).toMatchObject({
        title: "Trigger Long Running Operation Tool",
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      });
      // Tools server-everything registers only for clients that can sample or elicit: the gateway can.
      expect(byName.has("everything__trigger-sampling-request")).toBe(true);
      expect(byName.has("everything__trigger-elicitation-request")).toBe(true);
      expect(byName.get("chat")?.outputSchema).toMatchObject({ required: ["model", "stopReason", "turns", "toolCalls", "usage"] });
    });

    it("calls a tool by its namespaced name and passes the result back unchanged", async () => {
      const echo = await client.callTool({ name: "everything__echo", arguments: { message: "ping" } });
      expect(echo).toEqual({ content: [{ type: "text", text: "Echo: ping" }] });
      const structured = await client.callTool({ name: "fixture__probe_structured", arguments: { n: 21 } });
      expect(structured).toEqual({ content: [{ type: "text", text: '{"doubled":42}' }], structuredContent: { doubled: 42 } });
      const mixed = await client.callTool({ name: "fixture__test_multiple_content_types", arguments: {} });
      expect((mixed.content as { type: string }[]).map((c) => c.type)).toEqual(["text", "image", "resource"]);
    });

    it("passes isError results through, and refuses an unknown tool", async () => {
      const failed = await client.callTool({ name: "fixture__test_error_handling", arguments: {} });
      expect(failed).toEqual({ content: [{ type: "text", text: "This tool intentionally returns an error for testing" }], isError: true });
      await expect(client.callTool({ name: "nobody__nothing", arguments: {} })).rejects.toThrow(/Unknown tool: nobody__nothing/);
    });

    it("relays upstream progress notifications with the client's own progress token, ahead of the result", async () => {
      wire.length = 0;
      const result = await client.callTool({ name: "everything__trigger-long-running-operation", arguments: { duration: 0.2, steps: 4 } }, CallToolResultSchema, {
        onprogress: () => undefined,
      });
      expect(textOf(result)).toContain("Long running operation completed");
      const progress = progressOnWire();
      const token = (progress[0] as { progressToken?: unknown }).progressToken;
      expect(progress).toEqual([1, 2, 3, 4].map((n) => ({ progress: n, total: 4, progressToken: token })));
      // The client's token is its request id; every notification came before the response.
      const response = wire.findIndex((m) => "id" in m && m.id === token && "result" in m);
      const lastProgress = wire.findLastIndex((m) => "method" in m && m.method === "notifications/progress");
      expect(response).toBeGreaterThan(lastProgress);
    });

    it("cancels the upstream call when the client aborts, and the cancellation reaches the server", async () => {
      const controller = new AbortController();
      const call = client.callTool({ name: "fixture__probe_wait_for_cancel", arguments: {} }, CallToolResultSchema, {
        signal: controller.signal,
        // The first progress notification proves the call is running upstream.
        onprogress: () => controller.abort("user pressed stop"),
      });
      await expect(call).rejects.toThrow();
      // Resolves only once the upstream tool saw its request cancelled.
      const seen = await client.callTool({ name: "fixture__probe_cancelled", arguments: {} });
      expect(textOf(seen)).toMatch(/^cancelled: /);
    });

    it("cancels a slow server-everything operation mid-way", async () => {
      const controller = new AbortController();
      const progress: Progress[] = [];
      const call = client.callTool({ name: "everything__trigger-long-running-operation", arguments: { duration: 30, steps: 300 } }, CallToolResultSchema, {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p);
          controller.abort();
        },
      });
      await expect(call).rejects.toThrow();
      expect(progress[0]).toEqual({ progress: 1, total: 300 });
    });
  });

  describe("resources", () => {
    it("lists the resources of every server with URIs unchanged, and reads each from its owner", async () => {
      const { resources } = await client.listResources();
      const uris = resources.map((r) => r.uri);
      expect(uris).toContain("test://static-text");
      expect(uris.some((u) => u.startsWith("demo://resource/static/document/"))).toBe(true);
      const text = await client.readResource({ uri: "test://static-text" });
      expect(text.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }]);
      const everythingDoc = uris.find((u) => u.startsWith("demo://resource/static/document/"))!;
      const doc = await client.readResource({ uri: everythingDoc });
      expect(doc.contents[0]?.uri).toBe(everythingDoc);
    });

    it("lists templates and routes a read of a URI nobody listed by its template", async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("test://template/{id}/data");
      const read = await client.readResource({ uri: "test://template/77/data" });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ id: "77", templateTest: true, data: "Data for ID: 77" });
      await expect(client.readResource({ uri: "nowhere://at/all" })).rejects.toThrow(/not found/i);
    });

    it("subscribes upstream and relays resources/updated for the subscribed URI", async () => {
      const updated = signal<string>();
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.resolve(n.params.uri));
      await client.subscribeResource({ uri: "test://watched-resource" });
      await client.callTool({ name: "fixture__probe_touch", arguments: { uri: "test://watched-resource" } });
      expect(await updated.promise).toBe("test://watched-resource");
      await client.unsubscribeResource({ uri: "test://watched-resource" });
    });
  });

  describe("prompts and completion", () => {
    it("lists prompts namespaced like tools and gets one by its exposed name", async () => {
      const { prompts } = await client.listPrompts();
      const names = prompts.map((p) => p.name);
      expect(names).toEqual(expect.arrayContaining(["everything__simple-prompt", "fixture__test_prompt_with_arguments", "fixture__test_simple_prompt"]));
      expect(prompts.find((p) => p.name === "fixture__test_prompt_with_arguments")?.arguments?.map((a) => a.name)).toEqual(["arg1", "arg2"]);
      const got = await client.getPrompt({ name: "fixture__test_prompt_with_arguments", arguments: { arg1: "hello", arg2: "world" } });
      expect(got.messages).toEqual([{ role: "user", content: { type: "text", text: "Prompt with arguments: arg1='hello', arg2='world'" } }]);
    });

    it("forwards completion/complete to the server owning the prompt or the template", async () => {
      const prompt = await client.complete({ ref: { type: "ref/prompt", name: "fixture__test_prompt_with_arguments" }, argument: { name: "arg1", value: "par" } });
      expect(prompt.completion.values).toEqual(["paris", "park", "party"]);
      const template = await client.complete({ ref: { type: "ref/resource", uri: "test://template/{id}/data" }, argument: { name: "id", value: "12" } });
      expect(template.completion.values).toEqual(["123"]);
    });
  });

  describe("notifications", () => {
    it("relays tools, prompts and resources list_changed, and the new items are listed", async () => {
      /** Adds an item upstream; resolves once a list_changed came and the item is listed. */
      const addAndAwait = async (schema: NotificationSchema, kind: string, name: string, listed: () => Promise<boolean>) => {
        const notices = counter(client, schema);
        await client.callTool({ name: "fixture__probe_add", arguments: { kind, name } });
        await notices.after(0);
        // An earlier, unrelated change may be the first notice: wait for the next until listed.
        while (!(await listed())) await notices.after(notices.count);
      };
      await addAndAwait(ToolListChangedNotificationSchema, "tool", "fresh_tool", async () => (await client.listTools()).tools.some((t) => t.name === "fixture__fresh_tool"));
      expect(textOf(await client.callTool({ name: "fixture__fresh_tool", arguments: {} }))).toBe("fresh_tool ran");
      await addAndAwait(PromptListChangedNotificationSchema, "prompt", "fresh_prompt", async () =>
        (await client.listPrompts()).prompts.some((p) => p.name === "fixture__fresh_prompt"),
      );
      await addAndAwait(ResourceListChangedNotificationSchema, "resource", "fresh", async () =>
        (await client.listResources()).resources.some((r) => r.uri === "test://added/fresh"),
      );
    });

    it("forwards logging/setLevel and relays log messages of a call before its result, filtered by level", async () => {
      await client.setLoggingLevel("warning");
      logs.length = 0;
      await client.callTool({ name: "fixture__probe_log", arguments: { level: "info", data: "quiet please" } });
      await client.callTool({ name: "fixture__probe_log", arguments: { level: "error", data: "loud and clear" } });
      // A call's log messages travel on the call's own stream, ahead of its result.
      expect(logs.map((l) => l.data)).toEqual(["loud and clear"]);
      await client.setLoggingLevel("debug");
    });
  });

  describe("requests from upstream servers to the client", () => {
    it("forwards sampling/createMessage to the client unchanged and returns its answer", async () => {
      const seen: CreateMessageRequest[] = [];
      responders.sampling = (request) => {
        seen.push(request);
        return { role: "assistant", model: "client-model", content: { type: "text", text: "answer from the client" }, stopReason: "endTurn" };
      };
      const result = await client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "hello", maxTokens: 50 } });
      expect(textOf(result)).toContain("answer from the client");
      expect(seen[0]?.params).toMatchObject({
        systemPrompt: "You are a helpful test server.",
        maxTokens: 50,
        messages: [{ role: "user", content: { type: "text", text: "Resource trigger-sampling-request context: hello" } }],
      });
    });

    it("forwards elicitation/create to the client and returns the user's answer", async () => {
      const seen: ElicitRequest[] = [];
      responders.elicitation = (request) => {
        seen.push(request);
        return { action: "accept", content: { name: "Ada", check: true, email: "ada@example.com" } };
      };
      const everything = await client.callTool({ name: "everything__trigger-elicitation-request", arguments: {} });
      expect(textOf(everything)).toContain("- Name: Ada\n- Agreed to terms: true\n- Email: ada@example.com");
      expect(seen[0]?.params).toMatchObject({ message: "Please provide inputs for the following fields:", requestedSchema: { required: ["name"] } });
      const result = await client.callTool({ name: "fixture__test_elicitation", arguments: { message: "Who are you?" } });
      expect(textOf(result)).toBe('User response: action=accept, content={"name":"Ada","check":true,"email":"ada@example.com"}');
      expect(seen[1]?.params).toMatchObject({ message: "Who are you?", requestedSchema: { required: ["username", "email"] } });
    });

    it("forwards roots/list to the client", async () => {
      const result = await client.callTool({ name: "fixture__probe_roots", arguments: {} });
      expect(JSON.parse(textOf(result))).toEqual([{ uri: "file:///tmp/project", name: "project" }]);
    });
  });

  describe("the chat tool", () => {
    it("runs the agent loop with the gateway's tools and returns the answer with turns, tool calls and usage", async () => {
      upstream.script([{ calls: [{ id: "call_1", name: "everything__echo", arguments: { message: "via chat" } }] }, { text: "The echo said: via chat." }]);
      wire.length = 0;
      const result = await client.callTool({ name: "chat", arguments: { prompt: "Echo 'via chat'", model: "fake/gpt-test", system: "Be brief." } }, CallToolResultSchema, {
        onprogress: () => undefined,
      });
      const progress = progressOnWire();
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe("The echo said: via chat.");
      expect(result.structuredContent).toMatchObject({
        model: "fake/gpt-test",
        stopReason: "stop",
        turns: 2,
        toolCalls: [{ name: "everything__echo", isError: false }],
        usage: { inputTokens: 22, outputTokens: 14 },
      });
      // One per turn and one at the start and end of each tool call.
      expect(progress.map((p) => p.message)).toEqual([
        "turn 1: calling fake/gpt-test",
        "turn 1: running tool everything__echo",
        expect.stringMatching(/^turn 1: tool everything__echo done \(\d+ ms\)$/),
        "turn 2: calling fake/gpt-test",
      ]);
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
      const first = upstream.chatRequests()[0]!.body;
      expect(first.model).toBe("gpt-test");
      expect(first.messages[0]).toEqual({ role: "system", content: "Be brief." });
      const second = upstream.chatRequests()[1]!.body.messages as { role: string; content: unknown }[];
      expect(String(second.find((m) => m.role === "tool")?.content)).toContain("Echo: via chat");
    });

    it("refuses without a model when no default alias is configured, telling the user to pass one", async () => {
      const result = await client.callTool({ name: "chat", arguments: { prompt: "hi" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/pass "model"/);
    });
  });
});
