/**
 * A round-robin HTTP load balancer on 127.0.0.1, in front of gateway instances, for the tests of
 * many instances. Each request goes to the next instance, on a connection of its own, its answer
 * streamed back as it comes (SSE included). When an instance cannot be reached — the connection
 * is refused (it stopped listening), or reset before any byte of an answer (a connection it had
 * not accepted yet when it stopped listening) — the request goes to the next one: that is the
 * load balancer's part of a rolling restart (nginx's proxy_next_upstream error, HAProxy's
 * retries with option redispatch).
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Proxied {
  /** The instance's port. */
  backend: number;
  method: string;
  path: string;
  sessionId: string | undefined;
  status: number;
}

export interface RoundRobinProxy {
  url: string;
  /** Every request answered, in order, with the instance that answered it. */
  served: Proxied[];
  /** Instances tried in vain (refused or reset before answering) and skipped. */
  skipped: { backend: number; error: string }[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Sends the request to one instance: "answered" once its answer has been passed on, "unreachable" when it never began one. */
function forward(port: number, req: IncomingMessage, body: Buffer, res: ServerResponse, served: Proxied[]): Promise<"answered" | { unreachable: string }> {
  return new Promise((resolve) => {
    // A connection per request: the instance closes it after answering.
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, connection: "close" };
    delete headers["keep-alive"];
    const upstream = httpRequest({ host: "127.0.0.1", port, method: req.method, path: req.url, headers, agent: false });
    let answering = false;
    upstream.on("response", (answer) => {
      answering = true;
      served.push({ backend: port, method: req.method ?? "GET", path: req.url ?? "/", sessionId: req.headers["mcp-session-id"] as string | undefined, status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      // Flush headers at once: an SSE answer may stay quiet for a while.
      res.flushHeaders();
      answer.on("data", (chunk: Buffer) => res.write(chunk));
      answer.on("end", () => {
        res.end();
        resolve("answered");
      });
      answer.on("error", () => {
        res.destroy();
        resolve("answered");
      });
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      if (!answering) resolve({ unreachable: error.code ?? error.message });
      else res.destroy();
    });
    // The client went away: so does the request to the instance.
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  });
}

export async function startRoundRobinProxy(backends: readonly number[]): Promise<RoundRobinProxy> {
  const served: Proxied[] = [];
  const skipped: RoundRobinProxy["skipped"] = [];
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      res.destroy();
      return;
    }
    const first = next++;
    for (let attempt = 0; attempt < backends.length; attempt++) {
      const backend = backends[(first + attempt) % backends.length]!;
      const outcome = await forward(backend, req, body, res, served);
      if (outcome === "answered") return;
      skipped.push({ backend, error: outcome.unreachable });
    }
    res.writeHead(502, { "content-type": "text/plain" }).end("no instance could be reached");
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    skipped,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
