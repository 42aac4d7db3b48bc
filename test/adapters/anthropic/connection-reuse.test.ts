/**
 * Streamed Messages calls and the keep-alive pool, against a real server: calls in a row reuse
 * their connections, a server that keeps the body open after message_stop gets it cut,
 * boundedly, and a consumer that stops mid-answer cuts it at once. That the body's end is read
 * rather than cancelled after message_stop (what keeps a connection whose end arrives late) is
 * pinned deterministically in test/adapters/sse-events.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { anthropicSse } from "../../helpers/anthropic-rules.ts";
import { adapterAt, collect, lastResult, request, userText } from "./support.ts";

const message = [
  { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } },
  { type: "message_stop" },
];

interface Upstream {
  url: string;
  connections: Socket[];
  close(): Promise<void>;
}

async function upstream(respond: (res: ServerResponse) => void): Promise<Upstream> {
  const connections: Socket[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => respond(res));
  });
  server.on("connection", (socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let current: Upstream | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe("Anthropic streams and keep-alive", () => {
  it("streamed calls in a row reuse their connections (undici's pool alternates between two)", async () => {
    current = await upstream((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(anthropicSse(message));
    });
    const adapter = adapterAt(current.url);
    for (let i = 0; i < 6; i++) {
      const events = await collect(adapter.stream(request([userText("Hi")])));
      expect(lastResult(events).message.content).toEqual([{ type: "text", text: "Hello" }]);
    }
    expect(current.connections.length).toBeLessThanOrEqual(2);
  });

  it("a body left open after message_stop: the call still answers at once, and the connection is cut later", async () => {
    current = await upstream((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(anthropicSse(message)); // never ended
    });
    const events = await collect(adapterAt(current.url).stream(request([userText("Hi")])));
    expect(lastResult(events).stopReason).toBe("stop");
    const [socket] = current.connections;
    expect(socket).toBeDefined();
    // The bounded drain gives up and closes the socket (DRAIN_MS): waited on as an event.
    await new Promise<void>((resolve) => (socket!.destroyed ? resolve() : socket!.once("close", () => resolve())));
    expect(socket!.destroyed).toBe(true);
  });

  it("a consumer that stops before message_stop cuts the connection at once (the upstream stops generating)", async () => {
    current = await upstream((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(anthropicSse(message.slice(0, 3))); // mid-answer, never ended
    });
    for await (const event of adapterAt(current.url).stream(request([userText("Hi")]))) {
      if (event.type === "text_delta") break;
    }
    const [socket] = current.connections;
    await new Promise<void>((resolve) => (socket!.destroyed ? resolve() : socket!.once("close", () => resolve())));
    expect(socket!.destroyed).toBe(true);
  });
});
