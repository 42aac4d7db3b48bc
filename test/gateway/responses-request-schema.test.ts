/**
 * The Responses request's input items as the door validates them: each item checked by the branch
 * its `type` names (a message when it has none), so that a bad item is reported at its own bad
 * field, and items of types the gateway does not know are kept as sent.
 */
import { describe, expect, it } from "vitest";
import { GatewayError } from "../../src/core/index.ts";
import { validateResponsesBody } from "../../src/gateway/doors/responses/door.ts";

/** The refusal of a body with these input items: its message and the JSON path it names. */
function refusal(input: unknown[]): { message: string; param: string | undefined } {
  try {
    validateResponsesBody({ model: "m", input });
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { message: error.message, param: error.param };
  }
  throw new Error("the body was accepted");
}

describe("the Responses request's input items", () => {
  it("reports a bad call, output or reasoning item at its own field, not as a bad message", () => {
    const call = { type: "function_call", name: "shell", arguments: "{}", call_id: "c1" };
    expect(refusal([call, { type: "function_call", name: "shell", arguments: "{}" }])).toEqual({ message: "Invalid request: input[1].call_id: required: expected string", param: "input[1].call_id" });
    expect(refusal([{ type: "function_call_output", call_id: "c1", output: 5 }])).toMatchObject({ param: "input[0].output" });
    expect(refusal([{ type: "reasoning", summary: "x" }])).toMatchObject({ param: "input[0].summary" });
  });

  it("reports a bad message, with or without its type, at its own field", () => {
    expect(refusal([{ role: "robot", content: "hi" }])).toMatchObject({ param: "input[0].role" });
    expect(refusal([{ type: "message", role: "user", content: [{ type: "input_text" }] }])).toEqual({ message: "Invalid request: input[0].content[0].text: required: expected string", param: "input[0].content[0].text" });
    expect(refusal([{ role: "user", content: 5 }])).toEqual({ message: "Invalid request: input[0].content: expected string or array, received number", param: "input[0].content" });
    expect(refusal(["just text"])).toEqual({ message: "Invalid request: input[0]: expected object, received string", param: "input[0]" });
  });

  it("accepts a history of every kind of item, those of types it does not know kept as sent", () => {
    const input = [
      { role: "user", content: "list the files" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" },
      { type: "function_call", name: "shell", arguments: '{"command":["ls"]}', call_id: "c1" },
      { type: "function_call_output", call_id: "c1", output: "a.txt" },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "x" } },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "a.txt" }] },
    ];
    expect(validateResponsesBody({ model: "m", input }).input).toEqual(input);
  });
});
