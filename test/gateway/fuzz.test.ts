/**
 * Property-based fuzzing of the HTTP front door: thousands of malformed and hostile bodies
 * (wrong types, huge strings, deep nesting, invalid UTF-8, prototype-pollution keys). Every
 * answer must be a 4xx in the OpenAI error shape; the process stays up; memory returns to
 * its baseline; nothing is polluted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let gw: RunningGateway;
let live: RunningGateway;
let upstream: ScriptedUpstream;

beforeAll(async () => {
  // No provider is configured: even a well-formed body ends in a 4xx (unknown model).
  gw = await startGateway({ mcpServers: {}, gateway: { maxBodyBytes: 8 * 1024 * 1024 } });
  // A provider that answers: well-formed bodies go all the way through the adapters and the loop.
  upstream = await startScriptedUpstream("openai", () => ({ text: "fine" }));
  live = await startGateway({ mcpServers: {}, providers: { openai: { type: "openai", baseURL: `${upstream.url}/v1` } }, gateway: { retries: { attempts: 1 } } });
});
afterAll(async () => {
  await gw?.close();
  await live?.close();
  await upstream?.close();
});

const hostileKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "role", "content", "model", "messages");
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.string({ minLength: 10_000, maxLength: 40_000 }),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.oneof(hostileKey, fc.string()), tie("value"), { maxKeys: 5 }),
  ),
}));

/** Bodies shaped like chat requests, with any field possibly wrong. */
const chatish = fc.record(
  {
    model: fc.oneof(fc.string(), fc.constant("openai/gpt-4o"), jsonish.value),
    messages: fc.oneof(
      fc.array(fc.record({ role: fc.oneof(fc.constantFrom("system", "user", "assistant", "tool", "function"), jsonish.value), content: jsonish.value }, { requiredKeys: [] }), { maxLength: 4 }),
      jsonish.value,
    ),
    tools: jsonish.value,
    stream: fc.oneof(fc.boolean(), jsonish.value),
    __proto__: jsonish.value,
    temperature: jsonish.value,
  },
  { requiredKeys: [] },
);

function deepNesting(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

const rawBodies = fc.oneof(
  chatish.map((b) => JSON.stringify(b)),
  jsonish.value.map((v) => JSON.stringify(v) ?? "null"),
  fc.string(), // mostly not JSON at all
  fc.integer({ min: 100, max: 100_000 }).map(deepNesting),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from([0x7b, ...bytes, 0xff, 0xfe]).toString("latin1")), // invalid UTF-8
  fc.constant('{"__proto__": {"polluted": true}, "model": "x", "messages": [{"role": "user", "content": "hi", "__proto__": {"isAdmin": true}}]}'),
);

function heapAfterGc(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("fuzzing /v1/chat/completions", () => {
  it("answers every hostile body with a 4xx in the OpenAI error shape, and stays up", async () => {
    const baseline = heapAfterGc();
    let count = 0;
    await fc.assert(
      fc.asyncProperty(rawBodies, async (body) => {
        count++;
        const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
        const json = (await response.json()) as { error?: Record<string, unknown> };
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(Object.keys(json.error ?? {}).sort()).toEqual(["code", "message", "param", "type"]);
        expect(typeof json.error!.message).toBe("string");
      }),
      { numRuns: 2000 },
    );
    expect(count).toBe(2000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    const health = await fetch(`${gw.url}/health`);
    expect(health.status).toBe(200);
    // Memory returns near its baseline: nothing of those requests is retained.
    expect(heapAfterGc() - baseline).toBeLessThan(32 * 1024 * 1024);
  }, 120_000);
});

/** The answer text of a chat.completion body or of an SSE stream of chunks. */
function answerOf(text: string): string {
  if (!text.startsWith("data: ")) return (JSON.parse(text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  const frames = text.split("\n\n").filter((f) => f.startsWith("data: ") && f !== "data: [DONE]");
  expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  return frames.map((f) => (JSON.parse(f.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "").join("");
}

/** Bodies that are valid or nearly so: the paths past validation get exercised too. */
const validish = fc.record(
  {
    model: fc.constantFrom("openai/gpt-x", "openai/" + "m".repeat(300), "nope/x"),
    messages: fc.array(
      fc.oneof(
        fc.record({ role: fc.constant("user"), content: fc.oneof(fc.string(), fc.constant("")) }),
        fc.record({ role: fc.constant("system"), content: fc.string() }),
        fc.record({ role: fc.constant("assistant"), content: fc.oneof(fc.string(), fc.constant(null)) }),
        fc.record({ role: fc.constant("tool"), tool_call_id: fc.string({ minLength: 1 }), content: fc.string() }),
      ),
      { minLength: 1, maxLength: 5 },
    ),
    stream: fc.boolean(),
    temperature: fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.double()),
    max_tokens: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer()),
    tools: fc.array(fc.record({ type: fc.constant("function"), function: fc.record({ name: fc.stringMatching(/^[a-z_]{1,10}$/), parameters: fc.constant({ type: "object" }) }) }), { maxLength: 2 }),
  },
  { requiredKeys: ["model", "messages"] },
);

describe("fuzzing with a live provider behind the gateway", () => {
  it("never answers 5xx: malformed bodies are 4xx, well-formed ones (streamed or not) complete", async () => {
    let completed = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(chatish, chatish.map((b) => ({ ...b, model: "openai/gpt-x" })), validish), async (body) => {
        const response = await fetch(`${live.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify(body) });
        const text = await response.text();
        expect(response.status, text.slice(0, 300)).toBeLessThan(500);
        if (response.status === 200) {
          completed++;
          expect(answerOf(text)).toBe("fine");
        } else {
          expect(Object.keys((JSON.parse(text) as { error: object }).error).sort()).toEqual(["code", "message", "param", "type"]);
        }
      }),
      { numRuns: 500 },
    );
    expect(completed).toBeGreaterThan(0); // the generator does reach the provider
  }, 120_000);
});
