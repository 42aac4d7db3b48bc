/**
 * The common result response recognised without zod (src/mcp/client/result-response.ts), held
 * against the SDK's own schemas: whatever it accepts, the SDK accepts and parses to the same
 * value; the shapes it leaves to the SDK are the ones where the SDK could answer otherwise.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isJSONRPCResultResponse, parseJSONRPCMessage, SERVER_INFO_META_KEY } from "@modelcontextprotocol/client";
import { commonResultResponse } from "../../src/mcp/client/result-response.ts";

const json = fc.jsonValue({ maxDepth: 3 });
const id = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER + 2), fc.constant(null), fc.boolean());
const result = fc.oneof(
  fc.dictionary(fc.string(), json),
  fc.record({ content: fc.array(fc.record({ type: fc.constant("text"), text: fc.string() })), _meta: fc.option(fc.dictionary(fc.string(), json), { nil: undefined }) }, { requiredKeys: ["content"] }),
  fc.record({ _meta: fc.record({ [SERVER_INFO_META_KEY]: fc.oneof(json, fc.record({ name: fc.string(), version: fc.string() })) }) }),
  json,
);
/** Near the common shape: often exactly it, sometimes a key off, a type wrong or a key more. */
const often = <T, U>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<U>) => fc.oneof({ weight: 6, arbitrary: usual }, { weight: 1, arbitrary: other });
const message = fc
  .record({
    jsonrpc: often(fc.constant("2.0"), fc.constantFrom("1.0", undefined)),
    id: often(fc.oneof(fc.string(), fc.integer()), fc.option(id, { nil: undefined })),
    result: often(result, fc.constant(undefined)),
    extra: often(fc.constant(undefined), json),
  })
  .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)));

describe("commonResultResponse", () => {
  it("accepts only what the SDK accepts as a result response, and the SDK parses it to the same value", () => {
    let accepted = 0;
    fc.assert(
      fc.property(message, (value) => {
        const common = commonResultResponse(value);
        if (common === undefined) return;
        accepted++;
        expect(common).toBe(value);
        expect(isJSONRPCResultResponse(value)).toBe(true);
        expect(parseJSONRPCMessage(value)).toEqual(value);
      }),
      { numRuns: 2000 },
    );
    // The generator reaches the accepted shape often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(100);
  });

  it("recognises the answers servers send (so the SDK's checks are skipped for them)", () => {
    const answers = [
      { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "Echo: hi" }] } },
      { jsonrpc: "2.0", id: "a-1", result: { tools: [], nextCursor: "x" } },
      { jsonrpc: "2.0", id: 0, result: {} },
      { jsonrpc: "2.0", id: 3, result: { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } } },
    ];
    for (const answer of answers) {
      expect(commonResultResponse(answer)).toBe(answer);
      expect(parseJSONRPCMessage(answer)).toEqual(answer);
    }
  });

  it("leaves every other shape to the SDK", () => {
    const others: unknown[] = [
      null,
      "text",
      [{ jsonrpc: "2.0", id: 1, result: {} }],
      { jsonrpc: "2.0", id: 1, result: {}, extra: true },
      { jsonrpc: "2.0", id: 1.5, result: {} },
      { jsonrpc: "2.0", id: Number.MAX_SAFE_INTEGER + 2, result: {} },
      { jsonrpc: "2.0", id: null, result: {} },
      { jsonrpc: "2.0", result: {} },
      { jsonrpc: "1.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 1, result: [] },
      { jsonrpc: "2.0", id: 1, result: null },
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
      { jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: {} },
      // zod replaces a serverInfo it does not take: the SDK's value, not ours.
      { jsonrpc: "2.0", id: 1, result: { _meta: { [SERVER_INFO_META_KEY]: "not an implementation" } } },
      { jsonrpc: "2.0", id: 1, result: { _meta: "not an object" } },
      // zod drops an own "__proto__" key from what it copies (found by the property above).
      JSON.parse('{"jsonrpc":"2.0","id":0,"result":{"__proto__":[]}}'),
      JSON.parse('{"jsonrpc":"2.0","id":0,"result":{"_meta":{"__proto__":{}}}}'),
    ];
    for (const other of others.slice(-2)) expect(parseJSONRPCMessage(other)).not.toEqual(other);
    for (const other of others) expect(commonResultResponse(other)).toBeUndefined();
  });
});
