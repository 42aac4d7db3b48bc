/**
 * How tool calls arrive from OpenAI-protocol servers, under every preset: fragments matched by
 * index (continuations with `id: ""` or `name: ""`), whole calls in one chunk, no `index` at all;
 * broken arguments repaired (and replayed as valid JSON), unrepairable ones kept with an error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRESET_NAMES } from "../../../src/adapters/quirks/index.ts";
import { normalizeErrorBody } from "../../../src/adapters/openai-chat/error-body.ts";
import { GatewayError } from "../../../src/core/index.ts";
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { FINAL_ANSWER, wantsAnswer } from "../../helpers/strict-fakes/conversation.ts";
import { localFamily } from "../../helpers/strict-fakes/local.ts";
import { renderCompletion, renderSse, type ScriptedCall, type StreamStyle } from "../../helpers/strict-fakes/render.ts";
import { firstRejection } from "../../helpers/strict-fakes/strict-fake.ts";
import { adapterFor, callModel, callsOf, MODES, opening, rejectionOf, request, textOf, toolResults } from "./harness.ts";

let upstream: FakeUpstream;
let calls: ScriptedCall[] = [];
let style: StreamStyle = {};
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => {
    const rejection = firstRejection(localFamily("llamacpp").rules, req.body);
    if (rejection) return sendJson(res, rejection.status, rejection.body);
    const message = wantsAnswer(req.body) ? { content: FINAL_ANSWER, finish: "stop" } : { content: null, tool_calls: calls, finish: "tool_calls" };
    if (req.body.stream) sendSse(res, renderSse(message, "m", style));
    else sendJson(res, 200, renderCompletion(message, "m"));
  });
});
afterAll(() => upstream.close());

const url = () => `${upstream.url}/v1`;
const two: ScriptedCall[] = [
  { id: "call_a", name: "get_weather", arguments: '{"city": "Paris"}' },
  { id: "call_b", name: "get_time", arguments: '{"zone": "Europe/Paris"}' },
];

const STYLES: Record<string, StreamStyle> = {
  "continuations with id:'' (vLLM)": { piece: 2, continuationId: "empty" },
  "continuations with name:'' (LM Studio)": { piece: 2, continuationName: "empty" },
  "whole calls in one chunk (Ollama, xAI)": { wholeCalls: true },
  "whole calls without index (Mistral)": { wholeCalls: true, noIndex: true },
};

describe("streamed tool-call fragments, every preset", () => {
  for (const [label, s] of Object.entries(STYLES)) {
    it(label, async () => {
      calls = two;
      style = s;
      for (const preset of PRESET_NAMES) {
        const result = await callModel(adapterFor(url(), preset), request(opening()), "stream");
        expect(callsOf(result.message).map((c) => [c.id, c.name, c.arguments]), preset).toEqual([
          ["call_a", "get_weather", { city: "Paris" }],
          ["call_b", "get_time", { zone: "Europe/Paris" }],
        ]);
      }
    });
  }
});

describe.each(MODES)("malformed arguments (%s), every preset", (mode) => {
  it("repaired with jsonrepair: the object is used, no error, and the history replays valid JSON", async () => {
    calls = [{ id: "call_a", name: "get_weather", arguments: '{"city": "Paris"' }];
    style = { piece: 3 };
    for (const preset of PRESET_NAMES) {
      const first = await callModel(adapterFor(url(), preset), request(opening()), mode);
      const [call] = callsOf(first.message);
      expect(call, preset).toMatchObject({ arguments: { city: "Paris" }, rawArguments: '{"city": "Paris"' });
      expect(call!.argumentsError, preset).toBeUndefined();
      // llama-server would answer 500 to the broken text in the history; the repaired one passes.
      const second = await callModel(adapterFor(url(), preset), request([...opening(), first.message, toolResults([call!])]), mode);
      expect(textOf(second.message), preset).toBe(FINAL_ANSWER);
    }
  });

  it("unrepairable: still a tool call, with argumentsError for the loop to show the model", async () => {
    calls = [{ id: "call_a", name: "get_weather", arguments: "not json at all" }];
    for (const preset of PRESET_NAMES) {
      const [call] = callsOf((await callModel(adapterFor(url(), preset), request(opening()), mode)).message);
      expect(call, preset).toMatchObject({ type: "tool_call", name: "get_weather", arguments: {}, rawArguments: "not json at all", argumentsError: "tool arguments are not valid JSON" });
    }
  });
});

describe("error bodies in other shapes keep the provider's text", () => {
  it("top-level (Mistral, vLLM), array-wrapped (Gemini), string (xAI, LM Studio), FastAPI detail (Mistral 422)", () => {
    expect(normalizeErrorBody({ object: "error", message: "m", type: "t", code: "3230" })).toEqual({ error: { object: "error", message: "m", type: "t", code: "3230" } });
    expect(normalizeErrorBody([{ error: { code: 400, message: "m" } }])).toEqual({ error: { code: 400, message: "m" } });
    expect(normalizeErrorBody({ code: "c", error: "m" })).toEqual({ code: "c", error: { message: "m" } });
    expect(normalizeErrorBody({ detail: [{ type: "extra_forbidden", loc: ["body", "messages", 1, "user", "name"], msg: "Extra inputs are not permitted" }] })).toEqual({
      error: { message: "body.messages.1.user.name: Extra inputs are not permitted (extra_forbidden)" },
    });
    expect(normalizeErrorBody({ error: { message: "m" } })).toEqual({ error: { message: "m" } });
  });

  it("a Mistral 422 reaches the caller with its detail", async () => {
    const mistral = await startFakeUpstream((_req, res) =>
      sendJson(res, 422, { detail: [{ type: "extra_forbidden", loc: ["body", "messages", 1, "user", "name"], msg: "Extra inputs are not permitted", input: "bob" }] }),
    );
    try {
      const error = await rejectionOf(adapterFor(`${mistral.url}/v1`, "mistral").complete(request(opening())));
      expect(error).toBeInstanceOf(GatewayError);
      expect(error.status).toBe(422);
      expect(error.message).toBe("prov: body.messages.1.user.name: Extra inputs are not permitted (extra_forbidden)");
    } finally {
      await mistral.close();
    }
  });
});
