/**
 * A real `redis-server` (Debian's package) for the tests that need one: on 127.0.0.1, a free
 * port, no persistence, stopped (and restartable on the same port) by the test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { once } from "node:events";

export interface RunningRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, waits for its exit). */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
}

const REDIS = process.env.REDIS_SERVER ?? "redis-server";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn(REDIS, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no"], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        child.stdout!.off("data", onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on("data", onData);
    child.once("error", (error) => reject(new Error(`could not start ${REDIS} (install Debian's redis-server package): ${error.message}`)));
    child.once("exit", (code) => reject(new Error(`${REDIS} exited with ${code}: ${output}`)));
  });
}

export async function startRedis(): Promise<RunningRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = once(running, "exit");
      running.kill("SIGTERM");
      await exited;
    },
    async start() {
      if (!child) child = await launch(port);
    },
  };
}
