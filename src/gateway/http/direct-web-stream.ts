/**
 * An event stream that a handler answered as a web ReadableStream (the MCP SDK's Streamable HTTP
 * transport on `/mcp`: a POST's answer, a GET's stream), written to Node's ServerResponse by our
 * server (./direct-sse.ts calls it, for routes that ask) instead of by @hono/node-server.
 *
 * Why: before writing anything, @hono/node-server probes a body's first two chunks to give a
 * short answer a content-length, and when the second is not ready it waits a timer turn (at least
 * 1 ms) and looks again. An MCP POST's stream has its priming event at once and its answer a
 * moment later, so every forwarded `tools/call` waited that timer: a stdio server's `echo` took
 * 3.3 ms at the median through `/mcp` with the wait replaced by a check phase, 4.0 ms with it.
 *
 * Here the head leaves at the check phase of the turn that made the answer (after the upstream
 * request the handler started), with what the stream has by then (the priming event), or alone
 * when it has nothing yet (a client waits for the head of a GET stream before any event); chunks
 * that are ready together leave in one write, the last with the body's end. (Written at once
 * instead, before the upstream request, the head woke the client while the call was in flight:
 * on the 2-core bench machine, where client, gateway and server share the cores, the result then
 * left later.)
 */
import type { ServerResponse } from "node:http";

/** The read's result when it is already settled (within the two microtasks a queued chunk takes), else undefined. */
function settledSoon<T>(read: Promise<T>): Promise<T | undefined> {
  return Promise.race([read, Promise.resolve().then(() => Promise.resolve(undefined))]);
}

/**
 * Writes `body` after the head already set on `outgoing` (writeHead called, nothing sent), until
 * the stream ends; a client that goes away cancels the stream, a stream that fails cuts the
 * connection (the client sees the answer end short, as with @hono/node-server).
 */
export function pipeEventStream(body: ReadableStream<Uint8Array>, outgoing: ServerResponse): void {
  const reader = body.getReader();
  let over = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    over = true;
    outgoing.off("close", gone);
    outgoing.off("error", gone);
    wake?.();
  };
  function gone(reason?: unknown): void {
    if (over) return;
    stop();
    void reader.cancel(reason).catch(() => undefined);
  }
  if (outgoing.destroyed) return gone();
  outgoing.once("close", gone);
  outgoing.on("error", gone);
  const pump = async () => {
    // The head waits for the check phase: what the handler started in this turn goes out first
    // (the upstream request an MCP answer waits on: a client woken by the head meanwhile would
    // compete with it for the CPU), and what the stream has by then leaves with the head.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (over) return;
    let read = reader.read();
    let step = await settledSoon(read);
    // Nothing yet: the head goes alone, so that the client knows the stream is open.
    if (step === undefined) outgoing.flushHeaders();
    for (;;) {
      step ??= await read;
      if (over) return;
      if (step.done) {
        stop();
        outgoing.end();
        return;
      }
      // What the stream has ready now leaves in one write (with the end, when it is the last).
      const ready: Uint8Array[] = [step.value];
      for (;;) {
        read = reader.read();
        step = await settledSoon(read);
        if (step === undefined || step.done || over) break;
        ready.push(step.value);
      }
      if (over) return;
      const chunk = ready.length === 1 ? ready[0]! : Buffer.concat(ready);
      if (step?.done) {
        stop();
        outgoing.end(chunk);
        return;
      }
      if (outgoing.write(chunk) || over) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        outgoing.once("drain", resolve);
      });
      outgoing.off("drain", wake!);
      wake = undefined;
    }
  };
  pump().catch((error: unknown) => {
    if (over) return;
    stop();
    void reader.cancel(error).catch(() => undefined);
    outgoing.destroy();
  });
}
