/**
 * The strict Gemini fake refuses what Gemini refuses, with Gemini's texts (so a test that passes
 * against it would pass against Gemini), and the adapter's requests for the same conversations
 * pass it. Over real HTTP, through the adapter, with the fake's scripted conversation.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Message, ToolCallBlock } from "../../../src/core/index.ts";
import {
  GEMINI_MISSING_SIGNATURE,
  GEMINI_RESPONSE_COUNT,
  GEMINI_RESPONSE_ORDER,
  GEMINI_TURN_ORDER,
  geminiRejection,
  startGeminiFake,
  TIME_ARGS,
  WEATHER_ARGS,
  type GeminiFake,
} from "../../helpers/gemini-native-fake.ts";
import { adapterAt, collect, lastResult, userText } from "./support.ts";

const judge = (body: unknown, model = "gemini-3-pro-preview", options: Parameters<typeof geminiRejection>[1] = {}) =>
  geminiRejection({ method: "POST", path: `/v1beta/models/${model}:generateContent`, headers: {}, body, rawBody: "" }, options)?.message;

const user = (text: string) => ({ role: "user", parts: [{ text }] });
const calls = (...names: string[]) => ({ role: "model", parts: names.map((name) => ({ functionCall: { name, args: {} } })) });
const responses = (...names: string[]) => ({ role: "user", parts: names.map((name) => ({ functionResponse: { name, response: { output: "ok" } } })) });

describe("the strict fake's rules", () => {
  it("unknown schema fields, type lists", () => {
    const tools = (parameters: object) => [{ functionDeclarations: [{ name: "f", parameters }] }];
    expect(judge({ contents: [user("hi")], tools: tools({ type: "object", properties: { a: { type: "string", additionalProperties: false } } }) })).toBe(
      `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`,
    );
    expect(judge({ contents: [user("hi")], tools: tools({ type: "object", $schema: "x", properties: { a: { type: "string" } } }) })).toContain(`Unknown name "$schema"`);
    expect(judge({ contents: [user("hi")], tools: tools({ type: "object", properties: { a: { type: ["string", "null"] } } }) })).toContain("Proto field is not repeating, cannot start list.");
    expect(judge({ contents: [user("hi")], tools: [{ functionDeclarations: [{ name: "1tool" }] }] })).toContain("Invalid function name. Must start with a letter or an underscore.");
  });

  it("a function response that does not follow its call; counts that differ; a call turn after a model turn", () => {
    expect(judge({ contents: [user("hi"), responses("f")] }, "gemini-2.5-flash")).toBe(GEMINI_RESPONSE_ORDER);
    expect(judge({ contents: [user("hi"), calls("f"), user("wait"), responses("f")] }, "gemini-2.5-flash")).toBe(GEMINI_RESPONSE_COUNT);
    expect(judge({ contents: [user("hi"), calls("f", "g"), responses("f")] }, "gemini-2.5-flash")).toBe(GEMINI_RESPONSE_COUNT);
    expect(judge({ contents: [calls("f"), responses("f")] }, "gemini-2.5-flash")).toBe(GEMINI_TURN_ORDER);
    expect(judge({ contents: [user("hi"), calls("f"), responses("f")] }, "gemini-2.5-flash")).toBeUndefined();
  });

  it("Gemini 3: a call of the current turn without a signature; earlier turns are not checked; ids refused", () => {
    const body = { contents: [user("hi"), calls("f"), responses("f")] };
    expect(judge(body)).toMatch(new RegExp(`^${GEMINI_MISSING_SIGNATURE.replace(/[.()]/g, "\\$&")} .*function call \`default_api:f\` , position 2\\.`));
    expect(judge({ contents: [...body.contents, { role: "model", parts: [{ text: "done" }] }, user("next")] })).toBeUndefined();
    expect(judge({ contents: [user("hi"), { role: "model", parts: [{ functionCall: { id: "x", name: "f", args: {} }, thoughtSignature: "skip_thought_signature_validator" }] }] })).toBe(
      `Invalid JSON payload received. Unknown name "id" at 'contents[1].parts[0].function_call': Cannot find field.`,
    );
  });

  it("roles, empty contents, parts without data, responses that are not objects, budgets", () => {
    expect(judge({ contents: [{ role: "assistant", parts: [{ text: "x" }] }] })).toBe("Please use a valid role: user, model.");
    expect(judge({ contents: [{ role: "user", parts: [] }] })).toContain("contents.parts must not be empty.");
    expect(judge({ contents: [{ role: "user", parts: [{ thoughtSignature: "x" }] }] })).toContain("required oneof field 'data' must have one initialized field");
    expect(judge({ contents: [user("hi"), calls("f"), { role: "user", parts: [{ functionResponse: { name: "f", response: "text" } }] }] }, "gemini-2.5-flash")).toContain("google.protobuf.Struct");
    expect(judge({ contents: [user("hi")], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }, "gemini-2.5-pro")).toBe("The model does not support setting thinking_budget to 0.");
    expect(judge({ contents: [user("hi")], store: false })).toBe(`Invalid JSON payload received. Unknown name "store": Cannot find field.`);
  });
});

describe("the adapter against the fake's scripted conversation", () => {
  let fake: GeminiFake | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const tools = [
    { name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } },
    { name: "get_time", inputSchema: { type: "object", properties: { zone: { type: "string" } } } },
  ];

  it.each([false, true])("parallel calls, a sequential call, the answer: no refusal, signatures sent back (stream: %s)", async (stream) => {
    fake = await startGeminiFake();
    const adapter = adapterAt(fake.url.replace(/\/v1beta$/, ""));
    const messages: Message[] = [userText("weather and time")];
    for (let turn = 0; turn < 3; turn++) {
      const args = { model: "gemini-3-flash-preview", messages, tools, reasoning: { effort: "low" as const } };
      const result = stream ? lastResult(await collect(adapter.stream(args))) : await adapter.complete(args);
      messages.push(result.message);
      const made = result.message.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
      if (turn === 0) expect(made.map((c) => c.arguments)).toEqual([WEATHER_ARGS, TIME_ARGS]);
      if (made.length === 0) break;
      messages.push({ role: "tool", content: made.map((c) => ({ type: "tool_result" as const, callId: c.id, name: c.name, content: [{ type: "text" as const, text: "ok" }], isError: false })) });
    }
    expect(fake.rejections).toEqual([]);
    expect(fake.chatRequests()).toHaveLength(3);
    const last = messages.at(-1)!;
    expect(last.role).toBe("assistant");
    expect(last.content.at(-1)).toMatchObject({ type: "text", providerData: { origin: "gemini", data: { thoughtSignature: expect.any(String) } } });
  });

  it("counts tokens with Gemini's countTokens", async () => {
    fake = await startGeminiFake();
    const adapter = adapterAt(fake.url.replace(/\/v1beta$/, ""));
    expect(await adapter.countTokens!({ model: "gemini-2.5-flash", messages: [userText("hi")], tools })).toBe(42);
    expect(fake.requests[0]).toMatchObject({ path: "/v1beta/models/gemini-2.5-flash:countTokens", body: { generateContentRequest: { model: "models/gemini-2.5-flash", contents: [{ role: "user", parts: [{ text: "hi" }] }] } } });
    expect(fake.rejections).toEqual([]);
  });
});
