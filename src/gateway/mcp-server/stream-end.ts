/** Knowing when an HTTP answer's body is done: read to the end, failed, or cancelled by the client. */
import type { AnswerWatch } from "../http/client-gone.ts";

/**
 * `response`, with `done` called once when its body is over: written to the end, failed, or given
 * up by the client. On the gateway's Node server that is the ServerResponse's 'close', with no
 * stream in between (a ReadableStream and a read per chunk saved on every `/mcp` answer); without
 * it (the app called in-process) the body is wrapped.
 */
export function whenBodyDone(response: Response, done: () => void, watch: AnswerWatch | undefined): Response {
  if (!response.body) {
    done();
    return response;
  }
  if (watch) {
    watch(done);
    return response;
  }
  return new Response(onFinished(response.body, done), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** `body` with `done` called once when it has been read to the end, failed, or was cancelled. */
export function onFinished(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  const end = () => {
    if (finished) return;
    finished = true;
    done();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: isDone } = await reader.read();
        if (isDone) {
          end();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}
