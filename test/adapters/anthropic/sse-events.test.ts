import { describe, expect, it } from "vitest";
import { APIError } from "@anthropic-ai/sdk";
import { messageStreamBatches } from "../../../src/adapters/anthropic/sse-events.ts";
import type { WireStreamEvent } from "../../../src/adapters/anthropic/wire.ts";

const encoder = new TextEncoder();

function responseOf(text: string): Response {
  return new Response(encoder.encode(text), { headers: { "content-type": "text/event-stream", "request-id": "req_9" } });
}

/** The events one by one, as the adapter takes them out of each read's batch. */
async function* messageStreamEvents(response: Response, signal: AbortSignal): AsyncGenerator<WireStreamEvent> {
  for await (const batch of messageStreamBatches(response, signal)) yield* batch;
}

async function collect(response: Response): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const event of messageStreamEvents(response, new AbortController().signal)) out.push(event);
  return out;
}

describe("messageStreamBatches", () => {
  it("hands the events of one read over in one batch and decodes nothing after message_stop", async () => {
    const wire = [
      'event: message_start\ndata: {"type":"message_start"}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      "event: content_block_delta\ndata: {oops\n\n",
    ].join("");
    const batches: unknown[] = [];
    for await (const batch of messageStreamBatches(responseOf(wire), new AbortController().signal)) batches.push(batch);
    expect(batches).toEqual([[{ type: "message_start" }, { type: "message_stop" }]]);
  });

  it("yields named events' JSON and skips ping, unnamed events and events without data", async () => {
    const wire = [
      'event: message_start\ndata: {"type":"message_start","n":1}\n\n',
      'event: ping\ndata: {"type": "ping"}\n\n',
      'data: {"type":"unnamed"}\n\n',
      "event: content_block_stop\ndata: \n\n",
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join("");
    expect(await collect(responseOf(wire))).toEqual([{ type: "message_start", n: 1 }, { type: "message_stop" }]);
  });

  it("an error event throws the SDK's APIError with the error's type, after the events before it", async () => {
    const wire = 'event: message_start\ndata: {"type":"message_start"}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const seen: unknown[] = [];
    let failure: unknown;
    try {
      for await (const event of messageStreamEvents(responseOf(wire), new AbortController().signal)) seen.push(event);
    } catch (error) {
      failure = error;
    }
    expect(seen).toEqual([{ type: "message_start" }]);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).type).toBe("overloaded_error");
    expect((failure as APIError).message).toContain("Overloaded");
    expect((failure as APIError).requestID).toBe("req_9");
  });

  it("an error event whose data is not JSON still throws APIError, carrying the text", async () => {
    await expect(collect(responseOf("event: error\ndata: upstream exploded\n\n"))).rejects.toSatisfy(
      (error: unknown) => error instanceof APIError && error.message.includes("upstream exploded"),
    );
  });

  it("data that is not JSON in a regular event throws a SyntaxError", async () => {
    await expect(collect(responseOf("event: content_block_delta\ndata: {oops\n\n"))).rejects.toBeInstanceOf(SyntaxError);
  });
});
