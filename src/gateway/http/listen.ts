/**
 * Serves the app on host:port with @hono/node-server (streamed answers written to Node's
 * response directly: ./direct-sse.ts), and stops gracefully: stop accepting, close at once
 * every connection that has nothing in flight, let in-flight requests finish within a deadline
 * (each connection closing as soon as its last one has), then drop what is left.
 */
import { serve, type ServerType } from "@hono/node-server";
import type { Hono } from "hono";
import type { AddressInfo, Socket } from "node:net";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { withDirectSse } from "./direct-sse.ts";

export interface Listening {
  url: string;
  port: number;
  server: ServerType;
  /**
   * Stops accepting, closes idle connections at once, waits for in-flight requests up to
   * `deadlineMs` (resolving as soon as the last one has finished), then closes the rest.
   */
  close(deadlineMs?: number): Promise<void>;
}

export function listen(app: Hono, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    // Streamed answers are written to the ServerResponse once the app's middlewares are done.
    const server = serve({ fetch: withDirectSse(app.fetch), hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        server,
        close: (deadlineMs = 10_000) => connections.drain(deadlineMs),
      });
    });
    const connections = new Connections(server as Server);
    server.once("error", reject);
  });
}

/**
 * Every open connection and how many requests it has in flight. Node's own
 * `closeIdleConnections()` does not count a connection that has not sent its first request as
 * idle (the headers timer runs from the connect): a client's connection pool that opened one
 * ahead of need (undici does, right after a stream it was reading is cancelled) held `close()`
 * until the client gave it up, seconds later. So the gateway keeps its own account.
 */
class Connections {
  private readonly active = new Map<Socket, number>();
  private draining = false;

  constructor(private readonly server: Server) {
    server.on("connection", (socket: Socket) => {
      this.active.set(socket, 0);
      socket.once("close", () => this.active.delete(socket));
    });
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      this.active.set(socket, (this.active.get(socket) ?? 0) + 1);
      // While draining, answers say so and the connection is not kept for another request.
      if (this.draining) response.shouldKeepAlive = false;
      response.once("close", () => this.done(socket));
    });
  }

  private done(socket: Socket): void {
    const left = (this.active.get(socket) ?? 1) - 1;
    if (!this.active.has(socket)) return;
    this.active.set(socket, left);
    // Its last answer is written: the connection goes (after the bytes are flushed).
    if (this.draining && left <= 0) socket.destroySoon();
  }

  drain(deadlineMs: number): Promise<void> {
    this.draining = true;
    return new Promise((resolve) => {
      const deadline = setTimeout(() => this.server.closeAllConnections(), deadlineMs);
      deadline.unref();
      this.server.close(() => {
        clearTimeout(deadline);
        resolve();
      });
      // Nothing in flight on these: keep-alive connections between requests, and connections
      // that never sent one. (A client whose request was under way but has gone closed its
      // connection: Node drops it, and the request's work is aborted by its handler.)
      for (const [socket, requests] of this.active) if (requests <= 0) socket.destroy();
    });
  }
}
