/**
 * The Responses door's steps around the loop, on their own: its listed input items (what
 * `input_items` returns), `fit` waiting only when there are approved MCP calls to run, and
 * `remember` storing the answer, or logging a store that fails without ever failing the answer.
 */
import { describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import type { Logger } from "../../src/core/logger.ts";
import { listedInput, parseResponses, responsesDoor, type ResponsesRequest } from "../../src/gateway/doors/responses/door.ts";
import type { PreparedRequest } from "../../src/gateway/shared/door.ts";
import type { ChatDeps } from "../../src/gateway/shared/deps.ts";
import { ResponseStore, type StoredResponse } from "../../src/gateway/state/responses.ts";
import { MemoryStore, type StateStore } from "../../src/gateway/state/store.ts";
import type { LoopOutcome } from "../../src/loop/index.ts";

const config = resolveConfig({ mcpServers: {} }, {});
const noTools = { definitions: () => [], has: () => false, call: () => Promise.reject(new Error("no tools")) };
const gatewayTools: ChatDeps["tools"] = { serverNames: () => [], select: () => noTools };

function door(responses: ResponseStore, logger: Logger) {
  return responsesDoor({ logger, config, providers: new Map(), tools: gatewayTools, responses });
}

function prepare(body: Record<string, unknown>, store: ResponseStore): PreparedRequest<ResponsesRequest> {
  const parsed = parseResponses({ model: "p/m", ...body }, config, store, "t") as ResponsesRequest;
  const model = { requested: "p/m", modelId: "m", provider: { name: "p", type: "openai-responses", schemaTarget: "openai" }, candidates: [] };
  return { tenant: "t", parsed, model, request: parsed.request, tools: noTools, warnings: [] } as unknown as PreparedRequest<ResponsesRequest>;
}

const outcome = { stopReason: "stop", newMessages: [], usage: { inputTokens: 1, outputTokens: 1 }, last: { model: "m" } } as unknown as LoopOutcome;
const spyLogger = () => ({ error: vi.fn() }) as unknown as Logger & { error: ReturnType<typeof vi.fn> };

describe("the Responses door's steps", () => {
  it("lists the input items with an id first, then the item's own keys in its order, a type, and text as parts", () => {
    const items = listedInput([
      { role: "user", content: "hi" },
      { type: "message", role: "assistant", content: "hello", id: "msg_own" },
      { type: "function_call_output", call_id: "c1", output: "42" },
    ]);
    expect(items.map((item) => Object.keys(item))).toEqual([
      ["id", "role", "content", "type"],
      ["id", "type", "role", "content"],
      ["id", "type", "call_id", "output"],
    ]);
    expect(items[0]).toMatchObject({ role: "user", type: "message", content: [{ type: "input_text", text: "hi" }] });
    expect(items[0]!["id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    // An id the client gave is its own; text of the assistant's is output text.
    expect(items[1]).toEqual({ id: "msg_own", type: "message", role: "assistant", content: [{ type: "output_text", text: "hello" }] });
    expect(items[2]!["id"]).toMatch(/^item_[0-9a-f]{32}$/);
  });

  it("fits a request without approvals at once, and waits for the approved MCP calls when there are some", async () => {
    const store = new ResponseStore(new MemoryStore<StoredResponse>());
    const responses = door(store, spyLogger());
    const plain = prepare({ input: "hi" }, store);
    expect(responses.fit!(plain, new AbortController().signal)).toBeUndefined();
    // An approval of a call the conversation does not have: refused, but only once the approvals ran.
    const approving = prepare({ input: [{ type: "mcp_approval_response", approval_request_id: "mcpr_1", approve: true }] }, store);
    const fitting = responses.fit!(approving, new AbortController().signal);
    expect(fitting).toBeInstanceOf(Promise);
    await fitting;
    expect(approving.parsed.approvals[0]!.result).toMatchObject({ isError: true });
  });

  it("stores the answer unless the request said store: false", async () => {
    const store = new ResponseStore(new MemoryStore<StoredResponse>());
    const responses = door(store, spyLogger());
    const kept = prepare({ input: "hi" }, store);
    await responses.remember!(kept, outcome, { id: kept.parsed.head.id }, JSON.stringify({ id: kept.parsed.head.id }));
    expect(await store.get("t", kept.parsed.head.id)).toMatchObject({ response: { id: kept.parsed.head.id }, listed: [] });
    const unstored = prepare({ input: "hi", store: false }, store);
    expect(responses.remember!(unstored, outcome, { id: unstored.parsed.head.id })).toBeUndefined();
    expect(await store.get("t", unstored.parsed.head.id)).toBeUndefined();
  });

  it("logs a store that fails, by rejecting or by throwing, and lets the answer go out", async () => {
    const memory = new MemoryStore<StoredResponse>();
    const failing = (how: "reject" | "throw"): StateStore<StoredResponse> => ({
      get: (key) => memory.get(key),
      set: (key, value) => memory.set(key, value),
      setJson: () => {
        if (how === "throw") throw new Error("store went away");
        return Promise.reject(new Error("store went away"));
      },
      delete: (key) => memory.delete(key),
    });
    for (const how of ["reject", "throw"] as const) {
      const logger = spyLogger();
      const store = new ResponseStore(failing(how));
      const prepared = prepare({ input: "hi" }, store);
      const storing = door(store, logger).remember!(prepared, outcome, { id: prepared.parsed.head.id }, "{}");
      await expect(Promise.resolve(storing)).resolves.toBeUndefined();
      expect(logger.error).toHaveBeenCalledWith({ err: "store went away", response: prepared.parsed.head.id }, "could not store the response (state store unavailable)");
    }
  });
});
