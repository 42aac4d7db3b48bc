/**
 * The logger's line: pino's ISO time (made once per millisecond), the caller's fields, and the
 * request's id when a request context is entered (debug and trace levels).
 */
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, isoTime } from "../../src/core/logger.ts";
import { withRequestId } from "../../src/core/request-context.ts";

afterEach(() => {
  vi.useRealTimers();
});

function capture(): { stream: pino.DestinationStream; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream: stream as unknown as pino.DestinationStream, lines: () => chunks.join("").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("the logger", () => {
  it("writes pino's ISO time, new for each millisecond", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2026-11-25T03:25:00.123Z"));
    expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
    expect(isoTime()).toBe(',"time":"2026-11-25T03:25:00.123Z"');
    vi.setSystemTime(new Date("2026-11-25T03:25:00.124Z"));
    expect(isoTime()).toBe(',"time":"2026-11-25T03:25:00.124Z"');
  });

  it("writes pino's ISO time at every millisecond of a second, and across seconds, days and years", () => {
    vi.useFakeTimers();
    const times = [Date.parse("2026-12-31T23:59:58.000Z")];
    for (let ms = 1; ms <= 2500; ms++) times.push(times[0]! + ms);
    times.push(Date.parse("2026-11-25T03:25:07.009Z"), Date.parse("2026-11-25T03:25:07.010Z"), Date.parse("2026-11-25T03:25:07.099Z"), Date.parse("2026-11-25T03:25:07.100Z"), 0, 5);
    for (const time of times) {
      vi.setSystemTime(time);
      expect(isoTime()).toBe(`,"time":"${new Date(time).toISOString()}"`);
    }
  });

  it("writes the caller's fields, and the request's id inside a request context (a field of the line's own wins)", () => {
    const { stream, lines } = capture();
    const logger = createLogger({ destination: stream, level: "info" });
    logger.info({ door: "chat", status: 200 }, "outside");
    withRequestId("req-1", () => logger.info({ door: "messages" }, "inside"));
    withRequestId("req-2", () => logger.info({ requestId: "own" }, "own id"));
    const [outside, inside, own] = lines();
    expect(outside).toMatchObject({ msg: "outside", door: "chat", status: 200, service: "mcp-gateway" });
    expect(outside).not.toHaveProperty("requestId");
    expect(typeof outside!["time"]).toBe("string");
    expect(inside).toMatchObject({ msg: "inside", door: "messages", requestId: "req-1" });
    expect(own).toMatchObject({ msg: "own id", requestId: "own" });
  });
});
