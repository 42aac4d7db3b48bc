/**
 * Work that can wait until the answers of this turn of the event loop have been written: the
 * access log line. A turn's I/O callbacks and the microtasks after them write the answers (a
 * whole answer's `end`, a stream's last burst); the check phase comes next in the same turn, so
 * a task queued here runs after those writes, before any new I/O is read. One `setImmediate` per
 * turn for all of its tasks: under load many requests end in the same turn.
 *
 * The access line used to be written before the answer: serializing it cost a request about
 * 35 µs of latency at one connection (pino's fields, the time, the redaction), measured between
 * the handler's answer and the socket write (docs/performance.md).
 */

const queued: (() => void)[] = [];
let scheduled = false;

/** Runs `task` in this turn's check phase (after the writes of this turn), with the others queued. */
export function inCheckPhase(task: () => void): void {
  queued.push(task);
  if (scheduled) return;
  scheduled = true;
  setImmediate(runQueued);
}

function runQueued(): void {
  scheduled = false;
  // Taken at once: a task that queues another has it run in the next turn's check phase.
  const tasks = queued.splice(0);
  for (const task of tasks) {
    try {
      task();
    } catch (error) {
      // A failing task (a log line that cannot be serialized) must not take the process down with
      // it or stop the tasks after it: it is reported as a process warning.
      process.emitWarning(error instanceof Error ? error : new Error(String(error)), { code: "MCP_GATEWAY_DEFERRED_TASK" });
    }
  }
}
