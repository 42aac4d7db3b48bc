/**
 * The Messages door's faithful pass-through body: the gateway's defaults first, the client's
 * fields in the client's order (a field it also set keeps the default's place and takes the
 * client's value), then model, messages and the gateway's tools, tool choice and thinking. The
 * body is built by assignment (spreads are slow on Node 20): its JSON text must be what the
 * spread it replaced gave, key order included (recorded traffic replays byte for byte).
 */
import { describe, expect, it } from "vitest";
import type { ChatRequest, RequestPassthrough, ToolDefinition } from "../../../src/core/index.ts";
import { passthroughParams } from "../../../src/adapters/anthropic/passthrough.ts";
import { PROVIDER } from "./support.ts";

const gatewayTool: ToolDefinition = { name: "fs__read", description: "reads a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } };

function requestWith(body: { [key: string]: unknown }, extra: Partial<ChatRequest> = {}): { request: ChatRequest; passthrough: RequestPassthrough } {
  const passthrough: RequestPassthrough = {
    protocol: "anthropic-messages",
    body,
    tools: [{ name: "client_tool", input_schema: { type: "object" } }],
    headers: { "anthropic-version": "2023-06-01" },
  };
  const request: ChatRequest = {
    model: "claude-sonnet-4-5",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }], passthrough: { protocol: "anthropic-messages", message: { role: "user", content: "hi" } } }],
    tools: [gatewayTool],
    passthrough,
    ...extra,
  };
  return { request, passthrough };
}

/** The keys of the body, in order. */
const keys = (params: object) => Object.keys(params);

describe("passthroughParams", () => {
  it("puts the defaults first, the client's fields in its order, then model, messages and tools", () => {
    const { request, passthrough } = requestWith({ metadata: { user_id: "u" }, stop_sequences: ["x"], max_tokens: 512, tool_choice: { type: "auto" } });
    const params = passthroughParams(request, passthrough, { id: PROVIDER });
    expect(keys(params)).toEqual(["max_tokens", "metadata", "stop_sequences", "model", "messages", "tools", "tool_choice"]);
    expect(params.max_tokens).toBe(512);
    expect(params.model).toBe("claude-sonnet-4-5");
    expect((params.tools as { name: string }[]).map((t) => t.name)).toEqual(["client_tool", "fs__read"]);
  });

  it("gives an alias's system prompt and temperature only where the client set none, in the defaults' place", () => {
    const system = { role: "system" as const, content: [{ type: "text" as const, text: "be brief" }] };
    const { request, passthrough } = requestWith({ top_k: 5 }, { temperature: 1.5 });
    request.messages.unshift(system);
    const params = passthroughParams(request, passthrough, { id: PROVIDER }) as unknown as Record<string, unknown>;
    expect(keys(params)).toEqual(["max_tokens", "system", "temperature", "top_k", "model", "messages", "tools"]);
    expect(params["temperature"]).toBe(1);

    const own = requestWith({ system: "client's", temperature: 0.2, thinking: { type: "enabled", budget_tokens: 1024 } }, { temperature: 1.5 });
    own.request.messages.unshift(system);
    const withOwn = passthroughParams(own.request, own.passthrough, { id: PROVIDER }) as unknown as Record<string, unknown>;
    expect(keys(withOwn)).toEqual(["max_tokens", "system", "temperature", "model", "messages", "tools", "thinking"]);
    expect([withOwn["system"], withOwn["temperature"]]).toEqual(["client's", 0.2]);
  });

  it("keeps a field named __proto__ as a field, and leaves the client's body unchanged", () => {
    const body = JSON.parse('{"__proto__": {"x": 1}, "metadata": {"user_id": "u"}}') as { [key: string]: unknown };
    const before = JSON.stringify(body);
    const { request, passthrough } = requestWith(body);
    const params = passthroughParams(request, passthrough, { id: PROVIDER });
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(JSON.stringify(params)).toContain('"__proto__":{"x":1},"metadata"');
    expect(keys(params).slice(0, 3)).toEqual(["max_tokens", "__proto__", "metadata"]);
    expect(JSON.stringify(body)).toBe(before);
  });
});
