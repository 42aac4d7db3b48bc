/**
 * Log lines to a file descriptor (stderr), written once per turn of the event loop instead of once
 * per line: each synchronous write was a syscall, and the access log line's write was about 5% of
 * a request's CPU (docs/performance.md). Lines written in one turn (a burst of finished requests)
 * leave together in the check phase; more than MAX_BUFFER characters leave at once.
 *
 * Why not pino's asynchronous or buffered destination (sonic-boom): its exit-time flushSync retries
 * every failed write forever, so a log reader that has died (EPIPE: `| head -1`, a crashed
 * shipper) kept the gateway from exiting. Here:
 * - a full non-blocking pipe (EAGAIN, EBUSY) is waited out, as sonic-boom does;
 * - any other failure drops what could not be written and stops writing: logs are lost, the
 *   process lives and exits;
 * - at exit, what is left is written once.
 */
import { writeSync } from "node:fs";

/** What goes in one write at most before the rest of the turn (Docker's pipe buffer is 16 KB). */
const MAX_BUFFER = 16 * 1024;
/** How long a full pipe is waited out before trying again, in ms. */
const BUSY_WAIT_MS = 10;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

class BatchedDestination {
  private buffer = "";
  private scheduled = false;
  private broken = false;

  constructor(private readonly fd: number) {
    process.once("exit", () => this.flush());
  }

  write(line: string): void {
    if (this.broken) return;
    this.buffer += line;
    if (this.buffer.length >= MAX_BUFFER) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow).unref();
    }
  }

  /** Writes what is buffered, now; `logger.flush(done)` calls it with `done`, called once written. */
  flush(done?: (error?: Error) => void): void {
    this.scheduled = false;
    let data = Buffer.from(this.buffer, "utf8");
    this.buffer = "";
    while (data.length > 0 && !this.broken) {
      try {
        data = data.subarray(writeSync(this.fd, data));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EAGAIN" || code === "EBUSY") Atomics.wait(sleeper, 0, 0, BUSY_WAIT_MS);
        else this.broken = true;
      }
    }
    done?.();
  }

  private readonly flushNow = (): void => this.flush();
}

const destinations = new Map<number, BatchedDestination>();

/** The process's one batched destination for `fd` (every logger writing there shares it: one exit flush, lines in order). */
export function batchedDestination(fd: number): BatchedDestination {
  let destination = destinations.get(fd);
  if (!destination) {
    destination = new BatchedDestination(fd);
    destinations.set(fd, destination);
  }
  return destination;
}
