/**
 * A fake upstream and an undici pool, for the tests of the transport's own handlers
 * (test/adapters/whole-answer.test.ts, streamed-answer.test.ts): started before the file's tests,
 * closed after them; a test takes the server's side of its next request to drive the answer.
 */
import { afterAll, beforeAll } from "vitest";
import type { ServerResponse } from "node:http";
import { Agent } from "undici";
import { startFakeUpstream, type FakeUpstream, type Handler } from "./fake-upstream.ts";

export interface UndiciUpstream {
  readonly origin: string;
  readonly dispatcher: Agent;
  handle(handler: Handler): void;
  /** The response of the next request, once the request is in. */
  nextResponse(): Promise<ServerResponse>;
}

export function undiciUpstream(): UndiciUpstream {
  let upstream: FakeUpstream | undefined;
  const dispatcher = new Agent();
  beforeAll(async () => {
    upstream = await startFakeUpstream((_req, res) => void res.end());
  });
  afterAll(async () => {
    await dispatcher.close();
    await upstream?.close();
  });
  return {
    get origin() {
      return upstream!.url;
    },
    dispatcher,
    handle: (handler) => upstream!.handle(handler),
    nextResponse: () => new Promise((resolve) => upstream!.handle((_req, res) => resolve(res))),
  };
}
