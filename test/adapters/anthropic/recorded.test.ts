/**
 * Full HTTP exchanges recorded against the real API by anthropic-sdk-python (requests included).
 * The responses are served as recorded; for the tool loops the adapter rebuilds the same
 * conversation from neutral messages and must send the request body that was recorded.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ServerResponse } from "node:http";
import { readJsonFixture, startFakeUpstream, type FakeUpstream, type RecordedRequest } from "../../helpers/fake-upstream.ts";
import { anthropicHandler, anthropicRequestError } from "../../helpers/anthropic-rules.ts";
import type { ChatRequest, Message, ToolDefinition } from "../../../src/core/index.ts";
import { adapterAt, collect, completeError, lastResult, request, streamError, userText } from "./support.ts";

/** What a tool call carries when Anthropic's tool_use had `caller: {type: "direct"}`: kept to go back as it came. */
const DIRECT = { providerData: { origin: "anthropic", data: { fields: { caller: { type: "direct" } } } } };

interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body: any };
  response: { status_code: number; headers: Record<string, string>; body: any };
}

const exchanges = (uuid: string): Exchange[] => readJsonFixture<Exchange[]>(`anthropic/${uuid}.json`);

let server: FakeUpstream | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function sendRecorded(res: ServerResponse, response: Exchange["response"]): void {
  const body = typeof response.body === "string" ? response.body : JSON.stringify(response.body);
  const headers = { ...response.headers };
  delete headers["content-length"];
  res.writeHead(response.status_code, headers);
  res.end(body);
}

/** Answers the n-th request with the n-th recorded response (after the strict validator). */
async function replay(recorded: Exchange[]): Promise<FakeUpstream> {
  let next = 0;
  server = await startFakeUpstream(
    anthropicHandler((_req, res) => {
      const exchange = recorded[next++];
      if (!exchange) throw new Error("more requests than recorded exchanges");
      sendRecorded(res, exchange.response);
    }),
  );
  return server;
}

/**
 * The part of a body the conversion decides. The Python SDK echoes each response block verbatim,
 * so its tool_use blocks carry `caller: {type:"direct"}`. The adapter sends it back too when the
 * call came from this provider's response (provider data), not for calls made elsewhere: it is
 * compared without it.
 */
function conversionPart(body: any) {
  const messages = structuredClone(body.messages).map((message: any) => {
    if (Array.isArray(message.content)) {
      for (const block of message.content) if (block.type === "tool_use" && block.caller?.type === "direct" && Object.keys(block.caller).length === 1) delete block.caller;
    }
    return message;
  });
  return { model: body.model, max_tokens: body.max_tokens, messages, tools: body.tools, tool_choice: body.tool_choice, system: body.system, stream: body.stream };
}

const weatherTool: ToolDefinition = {
  name: "get_weather",
  description: "Lookup the weather for a given city in either celsius or fahrenheit",
  inputSchema: {
    additionalProperties: false,
    properties: {
      location: { description: "The city and state, e.g. San Francisco, CA", title: "Location", type: "string" },
      units: { description: "Unit for the output, either 'c' for celsius or 'f' for fahrenheit", enum: ["c", "f"], title: "Units", type: "string" },
    },
    required: ["location", "units"],
    type: "object",
  },
};

// What the Python test's tool returned (the \u00b0 escape is part of the text).
const sfWeather = String.raw`{"location": "San Francisco, CA", "temperature": "68\u00b0F", "condition": "Sunny"}`;

const weatherRequest = (messages: Message[]): ChatRequest => request(messages, { tools: [weatherTool], maxTokens: 1024 });

function toolResult(callId: string, text: string): Message {
  return { role: "tool", content: [{ type: "tool_result", callId, content: [{ type: "text", text }], isError: false }] };
}

function expectSameConversion(sent: RecordedRequest | undefined, recorded: Exchange) {
  expect(sent?.path).toBe("/v1/messages");
  expect(conversionPart(sent?.body)).toEqual(conversionPart(recorded.request.body));
  // The API version is the SDK's (1.12 sends a newer one than the recording's 2023-06-01).
  expect(sent?.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(sent?.headers["x-stainless-retry-count"]).toBe("0");
}

describe("555fb399: streamed tool loop", () => {
  it("sends the recorded requests and assembles both recorded streams", async () => {
    const recorded = exchanges("555fb399-a54c-455b-9ac5-2c9673f18e12");
    const upstream = await replay(recorded);
    const adapter = adapterAt(upstream.url);
    const question = userText("What is the weather in SF?");

    const first = await collect(adapter.stream(weatherRequest([question])));
    expectSameConversion(upstream.requests[0], recorded[0]!);
    const call = {
      type: "tool_call",
      id: "toolu_018acGYLtfR52q9yDbWaEdQZ",
      name: "get_weather",
      arguments: { location: "San Francisco, CA", units: "f" },
      rawArguments: '{"location": "San Francisco, CA", "units": "f"}',
      ...DIRECT,
    };
    expect(first).toContainEqual({ type: "tool_call_start", index: 0, id: call.id, name: call.name, ...DIRECT });
    expect(first.filter((event) => event.type === "tool_call_delta").map((event) => (event.type === "tool_call_delta" ? event.delta : ""))).toEqual([
      '{"',
      "loca",
      "tio",
      'n": ',
      '"San Fr',
      "anci",
      'sco, CA"',
      ', "',
      'units": "f"}',
    ]);
    const turn1 = lastResult(first);
    expect(turn1.message.content).toEqual([call]);
    expect(turn1.stopReason).toBe("tool_calls");
    expect(turn1.usage).toEqual({ inputTokens: 656, outputTokens: 74, cacheReadTokens: 0, cacheWriteTokens: 0 });

    // The loop appends the assistant turn exactly as the adapter returned it, then the tool's result.
    const second = await collect(adapter.stream(weatherRequest([question, turn1.message, toolResult(call.id, sfWeather)])));
    expectSameConversion(upstream.requests[1], recorded[1]!);
    const turn2 = lastResult(second);
    expect(turn2.message.content).toEqual([
      { type: "text", text: "The weather in San Francisco, CA is currently:\n- **Temperature:** 68°F\n- **Condition:** Sunny\n\nIt's a nice sunny day!" },
    ]);
    expect(turn2.stopReason).toBe("stop");
    expect(turn2.usage).toEqual({ inputTokens: 770, outputTokens: 38, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

describe("b38bbf6c: non-streamed tool loop", () => {
  it("sends the recorded requests and maps both recorded messages", async () => {
    const recorded = exchanges("b38bbf6c-9a76-40ca-b09d-7a3911776e0f");
    const upstream = await replay(recorded);
    const adapter = adapterAt(upstream.url);
    const question = userText("What is the weather in SF?");

    const turn1 = await adapter.complete(weatherRequest([question]));
    expectSameConversion(upstream.requests[0], recorded[0]!);
    expect(turn1).toEqual({
      id: "msg_018yE33RyaCdsMnr8kGYUQ5Y",
      model: "claude-haiku-4-5-20251001",
      message: {
        role: "assistant",
        content: [
          {
            type: "tool_call",
            id: "toolu_011bpynHqFZ9P4u5rSaXsTJQ",
            name: "get_weather",
            arguments: { location: "San Francisco, CA", units: "f" },
            rawArguments: '{"location":"San Francisco, CA","units":"f"}',
            ...DIRECT,
          },
        ],
      },
      stopReason: "tool_calls",
      providerStopReason: "tool_use",
      usage: { inputTokens: 656, outputTokens: 74, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });

    const turn2 = await adapter.complete(weatherRequest([question, turn1.message, toolResult("toolu_011bpynHqFZ9P4u5rSaXsTJQ", sfWeather)]));
    expectSameConversion(upstream.requests[1], recorded[1]!);
    expect(turn2.message.content).toEqual([{ type: "text", text: "The weather in San Francisco, CA is currently **Sunny** with a temperature of **68°F**." }]);
    expect(turn2.usage).toEqual({ inputTokens: 770, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

describe("e075a6c2: sequential tool use with text before each call", () => {
  it("sends text + tool_use back in one assistant turn, as recorded", async () => {
    const recorded = exchanges("e075a6c2-de4d-4125-9709-f0e178058190");
    const upstream = await replay(recorded);
    const adapter = adapterAt(upstream.url);
    const question = userText(
      "What's the weather in San Francisco, New York, London, Tokyo and Paris?If you need to use tools, call only one tool at a time. Wait for the tool'sresponse before making another call. Never call multiple tools at once.",
    );

    const turn1 = await adapter.complete(weatherRequest([question]));
    expectSameConversion(upstream.requests[0], recorded[0]!);
    expect(turn1.message.content).toEqual([
      { type: "text", text: "I'll get the weather for each of those cities. Let me start by checking San Francisco." },
      {
        type: "tool_call",
        id: "toolu_01LRanfq6DmHn1yDTB4d1SAh",
        name: "get_weather",
        arguments: { location: "San Francisco, CA", units: "f" },
        rawArguments: '{"location":"San Francisco, CA","units":"f"}',
        ...DIRECT,
      },
    ]);

    const turn2 = await adapter.complete(weatherRequest([question, turn1.message, toolResult("toolu_01LRanfq6DmHn1yDTB4d1SAh", sfWeather)]));
    expectSameConversion(upstream.requests[1], recorded[1]!);
    expect(turn2.message.content).toEqual([
      { type: "text", text: "Now let me check New York." },
      {
        type: "tool_call",
        id: "toolu_01RWdcDdE8NAFDgZ8F9Xk2K7",
        name: "get_weather",
        arguments: { location: "New York, NY", units: "f" },
        rawArguments: '{"location":"New York, NY","units":"f"}',
        ...DIRECT,
      },
    ]);
    expect(turn2.stopReason).toBe("tool_calls");
    expect(turn2.usage).toEqual({ inputTokens: 834, outputTokens: 81, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("sends requests the strict validator accepts, and the validator accepts every recorded request", () => {
    for (const uuid of ["555fb399-a54c-455b-9ac5-2c9673f18e12", "b38bbf6c-9a76-40ca-b09d-7a3911776e0f", "e075a6c2-de4d-4125-9709-f0e178058190"]) {
      for (const exchange of exchanges(uuid)) expect(anthropicRequestError(exchange.request.body)).toBeUndefined();
    }
  });
});

describe("f59a9391: a real 400", () => {
  const recorded = exchanges("f59a9391-643b-422c-96dc-1f28bc7ea4d7");
  const realMessage =
    "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01GHndag5wQmbzNihYmV2UBj. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.";

  it("maps the recorded invalid_request_error body to a non-retryable 400", async () => {
    server = await startFakeUpstream((_req, res) => sendRecorded(res, recorded[1]!.response));
    const error = await completeError(adapterAt(server.url).complete(request([userText("What's the weather in SF in Celsius?")])));
    expect(error.status).toBe(400);
    expect(error.type).toBe("invalid_request_error");
    expect(error.code).toBe("invalid_request_error");
    expect(error.retryable).toBe(false);
    expect(error.provider).toBe("anthropic");
    expect(error.message).toBe(`anthropic: ${realMessage}`);
  });

  it("the validator words the recorded bad request exactly as the real API did", () => {
    expect(recorded[1]!.response.body.error.message).toBe(realMessage);
    expect(anthropicRequestError(recorded[1]!.request.body, { mergeConsecutiveRoles: true })).toBe(realMessage);
  });

  it("the adapter never sends that orphan tool_result: the same neutral conversation is repaired", async () => {
    server = await startFakeUpstream(anthropicHandler((_req, res) => sendRecorded(res, recorded[0]!.response)));
    const orphan = toolResult("toolu_01GHndag5wQmbzNihYmV2UBj", "The weather in San Francisco, CA is currently sunny with a temperature of 20°C.");
    await adapterAt(server.url).complete(weatherRequest([userText("What's the weather in SF in Celsius?"), orphan]));
    const sent = server.requests[0]?.body;
    expect(sent.messages).toEqual([{ role: "user", content: "What's the weather in SF in Celsius?" }]);
    expect(anthropicRequestError(sent, { mergeConsecutiveRoles: true })).toBeUndefined();
  });
});

describe("recorded 429 rate limits, then success", () => {
  it("d743d628: each 429 is a retryable rate_limit_error; the retry (the gateway's) gets the message", async () => {
    const recorded = exchanges("d743d628-16aa-4c9f-ae78-51deb578f746");
    const upstream = await replay(recorded);
    const adapter = adapterAt(upstream.url);
    const extract = request([userText("Extract order: 2 Green Tea at $5.50 and 1 Coffee at $3.00. Total $14.")], {
      model: "claude-sonnet-4-5-20250929",
      maxTokens: 1024,
      responseFormat: { type: "json_schema", name: "OrderDetails", schema: recorded[0]!.request.body.output_config.format.schema },
    });
    for (const attempt of [1, 2]) {
      const error = await completeError(adapter.complete(extract));
      expect(error.status).toBe(429);
      expect(error.type).toBe("rate_limit_error");
      expect(error.code).toBe("rate_limit_error");
      expect(error.retryable).toBe(true);
      expect(error.message).toContain("This request would exceed your organization's rate limit of 20,000,000 prompt bytes per hour");
      // maxRetries 0: the SDK made exactly one HTTP request per call.
      expect(upstream.requests).toHaveLength(attempt);
    }
    const result = await adapter.complete(extract);
    expect(result.message.content).toEqual([
      { type: "text", text: '{"items":[{"product_name":"Green Tea","price":5.50,"quantity":2},{"product_name":"Coffee","price":3.00,"quantity":1}],"total":14.0}' },
    ]);
    expect(result.usage).toEqual({ inputTokens: 406, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 });
    // The schema travels as a system instruction, not as a field some models reject.
    const sent = upstream.requests[2]?.body;
    expect(sent.output_config).toBeUndefined();
    expect(sent.system).toContain('conforms to the JSON schema "OrderDetails"');
  });

  it("a8b7dbb8: a 429 answering a stream request fails the stream before any event", async () => {
    const recorded = exchanges("a8b7dbb8-2321-4624-abdb-7ba2136b5c38");
    const upstream = await replay(recorded);
    const adapter = adapterAt(upstream.url);
    const extract = request([userText("Extract order IDs from the following text:\n\nOrder 12345\nOrder 67890")], { maxTokens: 1024 });
    for (const attempt of [1, 2]) {
      const { error, seen } = await streamError(adapter.stream(extract));
      expect(seen).toEqual([]);
      expect(error.status).toBe(429);
      expect(error.type).toBe("rate_limit_error");
      expect(error.retryable).toBe(true);
      expect(upstream.requests).toHaveLength(attempt);
    }
    const result = lastResult(await collect(adapter.stream(extract)));
    expect(result.message.content).toEqual([{ type: "text", text: "[12345,67890]" }]);
    expect(result.usage).toEqual({ inputTokens: 135, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
