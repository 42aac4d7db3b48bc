/**
 * A StreamTranslation over a protocol's stream assembler (Anthropic's, the Responses API's): the
 * assembler turns each wire event into neutral events and knows when the terminal one came; what
 * a stream that ends before it means is the protocol's (`end`).
 *
 * A class, not an object literal with a `finished` getter: a getter made per call gives every
 * such object a hidden class of its own, kept in old space, which held the whole call's objects
 * until a full GC (docs/performance.md).
 */
import type { StreamEvent } from "../core/index.ts";
import type { StreamTranslation } from "./types.ts";

export interface StreamAssembling<T> {
  handle(event: T): StreamEvent[];
  readonly finished: boolean;
}

export class AssemblerTranslation<T> implements StreamTranslation<T> {
  constructor(
    private readonly assembler: StreamAssembling<T>,
    /** The events of a stream that ended without its terminal event, or the error it is. */
    private readonly ending: () => StreamEvent[],
  ) {}

  push(event: T): StreamEvent[] {
    return this.assembler.handle(event);
  }

  get finished(): boolean {
    return this.assembler.finished;
  }

  end(): StreamEvent[] {
    return this.ending();
  }
}
