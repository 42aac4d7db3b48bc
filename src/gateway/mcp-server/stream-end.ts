/** Knowing when an HTTP answer's body is done: read to the end, failed, or cancelled by the client. */

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
