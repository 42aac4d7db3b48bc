import type { ChatRequest } from "./request.ts";
import type { ChatResult, StreamEvent } from "./result.ts";

/**
 * Something that answers a neutral chat request, whole or streamed: a provider adapter, a
 * retrying/fallback wrapper around several, or an in-memory model in tests. The loop needs
 * nothing more.
 */
export interface ChatModel {
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
  /** Yields events ending with `done`; throws GatewayError on failure. */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamEvent>;
  /**
   * The same events in batches, one per read of the upstream, where the model can: each async
   * step is then paid per read, not per event (src/adapters/stream-batches.ts).
   */
  streamBatches?(request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamEvent[]>;
}
