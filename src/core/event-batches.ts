/**
 * Streamed events in batches (ChatModel.streamBatches: one batch per read of the upstream) and
 * one by one (ChatModel.stream), each from the other: src/adapters/stream-batches.ts has why.
 */
import type { ChatModel } from "./model.ts";
import { relay } from "./relay.ts";
import type { ChatRequest } from "./request.ts";
import type { StreamEvent } from "./result.ts";

/** The events of a batch stream one by one (ChatModel.stream over streamBatches). */
export function eachEvent(batches: AsyncIterable<StreamEvent[]>): AsyncGenerator<StreamEvent, void, undefined> {
  return relay<StreamEvent[], StreamEvent, void>(batches[Symbol.asyncIterator](), (batch) => batch);
}

/** A stream of single events as batches of one (a model without streamBatches). */
export function singleEvents(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent[], void, undefined> {
  return relay<StreamEvent, StreamEvent[], void>(events[Symbol.asyncIterator](), (event) => [[event]]);
}

/** A model's streamed events in batches: its own (one per upstream read) where it has them, else one by one. */
export function batchesOf(model: ChatModel, request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamEvent[]> {
  return model.streamBatches ? model.streamBatches(request, signal) : singleEvents(model.stream(request, signal));
}
