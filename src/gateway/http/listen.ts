/**
 * Serves the app on host:port with @hono/node-server, and stops gracefully: stop accepting,
 * let in-flight requests finish within a deadline, then drop what is left.
 */
import { serve, type ServerType } from "@hono/node-server";
import type { Hono } from "hono";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";

export interface Listening {
  url: string;
  port: number;
  server: ServerType;
  /** Stops accepting, waits for in-flight requests up to `deadlineMs`, then closes the rest. */
  close(deadlineMs?: number): Promise<void>;
}

export function listen(app: Hono, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        server,
        close: (deadlineMs = 10_000) => closeGracefully(server as Server, deadlineMs),
      });
    });
    server.once("error", reject);
  });
}

function closeGracefully(server: Server, deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
    deadline.unref();
    // Keep-alive sockets that turn idle once their last response is sent would hold close()
    // open until they time out: close them as they become idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    sweep.unref();
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
