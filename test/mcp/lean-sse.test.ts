/**
 * The MCP client transport's event streams read without web streams (src/mcp/client/lean-sse.ts),
 * against the SDK's own reader as the reference: each scenario runs through a real
 * StreamableHTTPClientTransport and a local HTTP server twice, once with the direct reader
 * installed (the gateway's fetch handing event streams out lazily) and once as the SDK reads them
 * (the same fetch without that), and both must see the same messages, resumption tokens and
 * errors, in the same order. Then what each scenario must show, so that both cannot be wrong alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPClientTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { claimNodeBody, createFastFetch } from "../../src/core/fast-fetch.ts";
import { readEventStreamsDirectly } from "../../src/mcp/client/lean-sse.ts";

type Script = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let base = "";
const scripts = new Map<string, Script>();
/** The Last-Event-ID of each GET a scenario's server saw (reconnections). */
const resumedFrom = new Map<string, (string | undefined)[]>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://local").pathname;
      if (req.method === "GET") resumedFrom.set(path, [...(resumedFrom.get(path) ?? []), req.headers["last-event-id"] as string | undefined]);
      const script = scripts.get(path);
      if (!script) {
        res.writeHead(404).end();
        return;
      }
      script(req, res, Buffer.concat(chunks).toString("utf8"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const eventStream = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
const frame = (message: object, id?: string, event?: string) => `${id ? `id: ${id}\n` : ""}${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(message)}\n\n`;
const progress = (n: number) => ({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: n } });
const answer = (text: string) => ({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }] } });
const CALL: JSONRPCMessage = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {} } };

type Seen = [kind: "message" | "error" | "token", value: unknown];

/**
 * Sends CALL through a transport (direct reader or the SDK's) and collects what it reports until
 * `ended` says the scenario is over.
 */
async function run(path: string, direct: boolean, ended: (seen: Seen[]) => boolean, onToken?: (token: string) => void): Promise<Seen[]> {
  const fetch = createFastFetch({ directEventStreams: direct });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
    fetch,
    reconnectionOptions: { initialReconnectionDelay: 1, maxReconnectionDelay: 1, reconnectionDelayGrowFactor: 1, maxRetries: 1 },
  });
  if (direct) readEventStreamsDirectly(transport);
  // Installed (an SDK whose reader moved would leave the SDK's in place, and the parity proves nothing).
  expect(Object.hasOwn(transport, "_handleSseStream")).toBe(direct);
  const seen: Seen[] = [];
  let done: () => void = () => undefined;
  const over = new Promise<void>((resolve) => (done = resolve));
  const note = (entry: Seen) => {
    seen.push(entry);
    if (ended(seen)) done();
  };
  transport.onmessage = (message) => note(["message", message]);
  transport.onerror = (error) => note(["error", error.message]);
  await transport.start();
  await transport.send(CALL, { onresumptiontoken: onToken ?? ((token) => note(["token", token])) });
  await over;
  await transport.close();
  return seen;
}

/** Both readers, the same scenario: what the direct one saw, after checking the SDK saw the same. */
async function both(path: string, script: Script, ended: (seen: Seen[]) => boolean): Promise<Seen[]> {
  scripts.set(path, script);
  const direct = await run(path, true, ended);
  const sdk = await run(path, false, ended);
  expect(direct).toEqual(sdk);
  return direct;
}

const hasAnswer = (seen: Seen[]) => seen.some(([kind, value]) => kind === "message" && (value as { id?: unknown }).id !== undefined);

describe("the MCP client's event streams read directly, as the SDK reads them", () => {
  it("hands on the notifications before the response, in order, across chunk and UTF-8 character boundaries", async () => {
    const seen = await both(
      "/ordered",
      (_req, res) => {
        eventStream(res);
        res.write(frame(progress(1)));
        // A frame cut inside a two-byte character (é) and written in pieces.
        const bytes = Buffer.from(frame(progress(2)) + frame(answer("café")));
        const cut = bytes.indexOf(Buffer.from("é")) + 1;
        res.write(bytes.subarray(0, 7));
        res.write(bytes.subarray(7, cut));
        res.end(bytes.subarray(cut));
      },
      hasAnswer,
    );
    expect(seen).toEqual([
      ["message", progress(1)],
      ["message", progress(2)],
      ["message", answer("café")],
    ]);
  });

  it("reports resumption tokens and, when the stream ends without the response, resumes from the last event id", async () => {
    const seen = await both(
      "/resumed",
      (req, res) => {
        eventStream(res);
        if (req.method === "POST") {
          res.end(frame(progress(1), "e1"));
          return;
        }
        res.end(frame(answer("resumed"), "e2"));
      },
      hasAnswer,
    );
    expect(seen).toEqual([
      ["token", "e1"],
      ["message", progress(1)],
      ["token", "e2"],
      ["message", answer("resumed")],
    ]);
    // Once per run: the direct reader's, then the SDK's.
    expect(resumedFrom.get("/resumed")).toEqual(["e1", "e1"]);
  });

  it("skips other event types, reports data that is not JSON-RPC, and goes on", async () => {
    const seen = await both(
      "/mixed",
      (_req, res) => {
        eventStream(res);
        res.write(": a comment\n\n");
        res.write(frame({ jsonrpc: "2.0", method: "ignored" }, undefined, "ping"));
        res.write("data: not json\n\n");
        res.write(frame({ hello: "world" }));
        res.end(frame(answer("after")));
      },
      hasAnswer,
    );
    expect(seen.map(([kind]) => kind)).toEqual(["error", "error", "message"]);
    expect(String(seen[0]![1])).toMatch(/JSON/);
    expect(seen[2]).toEqual(["message", answer("after")]);
  });

  it("reports a stream cut off before the response as the SDK does", async () => {
    const seen = await both(
      "/cut",
      (_req, res) => {
        eventStream(res);
        res.write(frame(progress(1)), () => res.socket?.destroy());
      },
      (s) => s.some(([kind]) => kind === "error"),
    );
    expect(seen).toEqual([
      ["message", progress(1)],
      ["error", "SSE stream disconnected: TypeError: terminated"],
    ]);
  });
});

describe("a callback of the transport's that throws", () => {
  it("ends the stream as a stream failure, as the SDK's reader does, not as an uncaught exception", async () => {
    scripts.set("/throwing", (_req, res) => {
      eventStream(res);
      res.end(frame(progress(1), "e1") + frame(answer("late"), "e2"));
    });
    const failing = () => {
      throw new Error("token callback failed");
    };
    const hasError = (seen: Seen[]) => seen.some(([kind]) => kind === "error");
    const direct = await run("/throwing", true, hasError, failing);
    const sdk = await run("/throwing", false, hasError, failing);
    expect(direct).toEqual(sdk);
    expect(direct).toEqual([["error", "SSE stream disconnected: Error: token callback failed"]]);
  });
});

describe("the lazy event-stream body of the gateway's fetch", () => {
  it("gives its Node stream once, to the first claim, only while the web side was never read", async () => {
    scripts.set("/body", (_req, res) => {
      eventStream(res);
      res.end("data: {}\n\n");
    });
    const lazy = await createFastFetch({ directEventStreams: true })(`${base}/body`, { method: "POST", body: "{}" });
    const body = lazy.body;
    const claimed = claimNodeBody(body);
    expect(claimed?.body.readable).toBe(true);
    expect(claimNodeBody(body)).toBeUndefined();
    // The web side of a claimed body cannot be read any more.
    await expect(body!.getReader().read()).rejects.toThrow(/read directly/);
    // The claim has the whole body.
    const direct = await new Promise<string>((resolve) => {
      let text = "";
      claimed!.body.on("data", (chunk: Buffer) => (text += chunk.toString("utf8"))).once("end", () => resolve(text));
    });
    expect(direct).toBe("data: {}\n\n");

    const read = await createFastFetch({ directEventStreams: true })(`${base}/body`, { method: "POST", body: "{}" });
    expect(await read.text()).toBe("data: {}\n\n");
    const plain = await createFastFetch()(`${base}/body`, { method: "POST", body: "{}" });
    expect(claimNodeBody(plain.body)).toBeUndefined();
    await plain.body!.cancel();
  });

  it("still reads as a web stream when nobody claims it", async () => {
    scripts.set("/web", (_req, res) => {
      eventStream(res);
      res.write("data: 1\n\n");
      res.end("data: 2\n\n");
    });
    const response = await createFastFetch({ directEventStreams: true })(`${base}/web`, { method: "POST", body: "{}" });
    const text = await new Response(response.body).text();
    expect(text).toBe("data: 1\n\ndata: 2\n\n");
    expect(claimNodeBody(response.body)).toBeUndefined();
  });
});
