import { describe, expect, it, vi } from "vitest";
import { APIError } from "openai";
import { sseChunkBatches, STREAM_DONE } from "../../../src/adapters/openai-chat/sse-chunks.ts";
import type { WireChunk } from "../../../src/adapters/openai-chat/wire-types.ts";

const encoder = new TextEncoder();

/** A response whose body delivers exactly these byte pieces, in order; `watch` counts its reads and notes a cancel. */
function watchedResponse(pieces: (string | Uint8Array)[]): { response: Response; watch: { pulls: number; cancelled: boolean } } {
  const watch = { pulls: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[watch.pulls++];
      if (piece === undefined) return controller.close();
      controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
    },
    cancel() {
      watch.cancelled = true;
    },
  });
  return { response: new Response(body, { headers: { "content-type": "text/event-stream", "x-request-id": "req_1" } }), watch };
}

function responseOf(pieces: (string | Uint8Array)[]): Response {
  return watchedResponse(pieces).response;
}

/** The chunks one by one, as the adapter takes them out of each read's batch ([DONE]'s marker left out: the body read on to its end). */
async function* sseChunks(response: Response, signal: AbortSignal): AsyncGenerator<WireChunk> {
  for await (const batch of sseChunkBatches(response, signal)) for (const item of batch) if (item !== STREAM_DONE) yield item;
}

const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

async function collect(response: Response, signal = new AbortController().signal): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of sseChunks(response, signal)) out.push(chunk);
  return out;
}

describe("sseChunkBatches", () => {
  it("hands the chunks of one read over in one batch", async () => {
    const response = responseOf([event({ n: 1 }) + event({ n: 2 }), event({ n: 3 }) + "data: [DONE]\n\n"]);
    const batches: unknown[] = [];
    for await (const batch of sseChunkBatches(response, new AbortController().signal)) batches.push(batch);
    expect(batches).toEqual([[{ n: 1 }, { n: 2 }], [{ n: 3 }, STREAM_DONE]]);
  });

  it("[DONE] is the answer's end: a consumer that stops there has the rest of the body read behind, not cancelled", async () => {
    const pieces = [event({ n: 1 }) + "data: [DONE]\n\n", ": trailing comment\n\n", event({ n: 2 })];
    const { response, watch } = watchedResponse(pieces);
    const seen: unknown[] = [];
    for await (const batch of sseChunkBatches(response, new AbortController().signal)) {
      seen.push(...batch);
      if (batch.includes(STREAM_DONE)) break;
    }
    expect(seen).toEqual([{ n: 1 }, STREAM_DONE]);
    await vi.waitFor(() => expect(watch.pulls).toBe(pieces.length + 1));
    expect(watch.cancelled).toBe(false);
  });

  it("yields each event's JSON in order and stops at [DONE], ignoring anything after it", async () => {
    const response = responseOf([event({ n: 1 }) + event({ n: 2 }), event({ n: 3 }) + "data: [DONE]\n\n" + event({ n: 4 })]);
    expect(await collect(response)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it("reassembles events cut anywhere, including inside a multi-byte character", async () => {
    const wire = encoder.encode(event({ text: "héllo — 世界 🎉" }) + event({ text: "two" }));
    // One byte per read: every possible cut, UTF-8 sequences split included.
    const pieces = Array.from(wire, (byte) => new Uint8Array([byte]));
    expect(await collect(responseOf(pieces))).toEqual([{ text: "héllo — 世界 🎉" }, { text: "two" }]);
  });

  it("accepts CRLF and CR line ends, comments and named events like the SDK", async () => {
    const response = responseOf([': keep-alive\r\n\r\ndata: {"a":1}\r\n\r\n', 'event: message\rdata: {"b":2}\r\r']);
    expect(await collect(response)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("joins multi-line data with newlines before parsing", async () => {
    expect(await collect(responseOf(['data: {"a":\ndata: 1}\n\n']))).toEqual([{ a: 1 }]);
  });

  it("drops an event left unterminated at the end of the body (as the SDK does)", async () => {
    expect(await collect(responseOf([event({ n: 1 }), 'data: {"n":2}']))).toEqual([{ n: 1 }]);
    // One line end is not the blank line that ends an event.
    expect(await collect(responseOf([event({ n: 1 }), 'data: {"n":2}\n']))).toEqual([{ n: 1 }]);
  });

  it("an event carrying `error` throws the SDK's APIError with the provider's error and headers", async () => {
    const response = responseOf([event({ n: 1 }), event({ error: { message: "overloaded", code: "server_busy" } })]);
    const seen: unknown[] = [];
    const failure = await (async () => {
      try {
        for await (const chunk of sseChunks(response, new AbortController().signal)) seen.push(chunk);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(seen).toEqual([{ n: 1 }]);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).message).toContain("overloaded");
    expect((failure as APIError).code).toBe("server_busy");
    expect((failure as APIError).headers?.get("x-request-id")).toBe("req_1");
  });

  it("data that is not JSON throws a SyntaxError", async () => {
    await expect(collect(responseOf(["data: {not json\n\n"]))).rejects.toBeInstanceOf(SyntaxError);
  });

  it("a body that fails while the caller's signal is aborted ends quietly", async () => {
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(encoder.encode(event({ n: 1 })));
      },
      pull(stream) {
        controller.abort();
        stream.error(new DOMException("aborted", "AbortError"));
      },
    });
    expect(await collect(new Response(body), controller.signal)).toEqual([{ n: 1 }]);
  });

  it("a body that fails without an abort rethrows the failure", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(stream) {
        stream.error(new TypeError("terminated"));
      },
    });
    await expect(collect(new Response(body))).rejects.toThrow("terminated");
  });

  it("a consumer that stops early cancels the rest of the body", async () => {
    const { response, watch } = watchedResponse([event({ n: 1 }) + event({ n: 2 }), event({ n: 3 })]);
    for await (const chunk of sseChunks(response, new AbortController().signal)) {
      expect(chunk).toEqual({ n: 1 });
      break;
    }
    expect(watch.cancelled).toBe(true);
  });

  it("a body read to [DONE] is not cancelled", async () => {
    const { response, watch } = watchedResponse([event({ n: 1 }) + "data: [DONE]\n\n"]);
    await collect(response);
    expect(watch.cancelled).toBe(false);
  });

  it("after [DONE] the body is still read to its end (the connection can be reused), not cancelled", async () => {
    const pieces = [event({ n: 1 }) + "data: [DONE]\n\n", ": trailing comment\n\n", event({ n: 2 })];
    const { response, watch } = watchedResponse(pieces);
    expect(await collect(response)).toEqual([{ n: 1 }]);
    expect(watch.pulls).toBe(pieces.length + 1);
    expect(watch.cancelled).toBe(false);
  });

  it("a response without a body is refused", async () => {
    await expect(collect(new Response(null))).rejects.toThrow("no body");
  });
});
