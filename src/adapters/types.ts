import type { ChatModel, ChatRequest, ChatResult, StreamEvent } from "../core/index.ts";

export interface AdapterOptions {
  /** The provider's name (its key in `providers`); stamped on errors and on opaque provider data. */
  id: string;
  baseURL?: string;
  apiKey?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Per-request timeout of the HTTP call, in ms. */
  timeoutMs?: number;
  /** Sent when a request has no maxTokens and the protocol requires one (Anthropic). */
  defaultMaxTokens?: number;
  /** Custom fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/**
 * One model provider reached over one wire protocol. Stateless: every call gets the whole
 * conversation. Errors are thrown as GatewayError (never raw SDK errors).
 */
export interface ModelAdapter extends ChatModel {
  readonly id: string;
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
  /** Yields events ending with `done`; throws GatewayError on failure. */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamEvent>;
  /** The provider's own count of the request's input tokens, where its protocol has one. */
  countTokens?(request: ChatRequest, signal?: AbortSignal): Promise<number>;
  /**
   * `POST /embeddings` with the client's body as it is (model replaced), for protocols that have
   * it: the provider's answer, as it is.
   */
  embed?(body: { [key: string]: unknown }, signal?: AbortSignal): Promise<unknown>;
}

/**
 * A streamed answer's translation into StreamEvents, synchronous: the adapter's one generator
 * yields what it returns, so an event passes no async layer of its own here (each costs a promise
 * and a microtask per event). `finished` turns true with the event after which nothing more is
 * read (the protocol's terminal event); `end()` is for a stream whose body ended before that.
 */
export interface StreamTranslation<T> {
  push(event: T): StreamEvent[];
  readonly finished: boolean;
  end(): StreamEvent[];
}
