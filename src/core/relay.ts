/**
 * A source's items passed on as another generator's (batches one event at a time, or events one
 * per batch: a model's stream events, the loop's events), with the source's return value. A
 * consumer that stops early (a `break` out of its `for await`, `return()`) closes the source
 * too, and with it the model's stream (the upstream connection) and whatever else the source's
 * `finally` blocks release.
 */
export async function* relay<I, O, R>(source: AsyncIterator<I, R>, outputs: (item: I) => Iterable<O>): AsyncGenerator<O, R> {
  let ended = false;
  try {
    for (;;) {
      // A source that threw is over: return() in the finally below is then a no-op.
      const step = await source.next();
      if (step.done) {
        ended = true;
        return step.value;
      }
      yield* outputs(step.value);
    }
  } finally {
    if (!ended) await source.return?.(undefined as never);
  }
}
