/**
 * The event streams of the MCP SDK's Streamable HTTP client transport, read without web streams.
 *
 * For every POST answered with `text/event-stream` (a tools/call to most servers) the SDK pipes
 * the body through a TextDecoderStream and an EventSourceParserStream and reads it event by event:
 * three web streams, two pipes and a promise per event, about a fifth of the gateway's CPU per
 * forwarded tools/call (docs/performance.md). Here the transport's `_handleSseStream` reads the
 * body's Node stream instead (the gateway's fetch hands event streams out lazily so that it can:
 * src/core/fast-fetch.ts), with the same parser (eventsource-parser's, which the SDK's stream
 * wraps) and the same rules, line for line from the SDK's own (StreamableHTTPClientTransport
 * `_handleSseStream`, @modelcontextprotocol/client 2.4): resumption tokens, the retry interval
 * the server sets, replayed ids, reconnection when the stream ends without the response, the
 * same errors. A body this fetch did not make, or one already read, goes to the SDK's own code.
 * (Not the providers' reader, ../../adapters/sse-events.ts: that one keeps the provider SDKs'
 * rules, which differ: no ids nor retry interval, quiet on abort.)
 */
import type { Readable } from "node:stream";
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, parseJSONRPCMessage, type JSONRPCMessage, type StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { claimNodeBody, failure } from "../../core/fast-fetch.ts";
import { Utf8Decoder } from "../../core/utf8-decoder.ts";
import { commonResultResponse } from "./result-response.ts";

/** What the SDK passes its stream handler (its StartSSEOptions plus the request stream's end). */
interface SseStreamOptions {
  onresumptiontoken?: (token: string) => void;
  replayMessageId?: string | number;
  requestSignal?: AbortSignal;
  onRequestStreamEnd?: () => void;
  resumptionToken?: string;
}

/** The transport's members the SDK's handler uses (private in its types, public at runtime). */
interface TransportInternals {
  _handleSseStream(stream: unknown, options: SseStreamOptions, isReconnectable: boolean): void;
  _scheduleReconnection(options: SseStreamOptions, attemptCount: number): void;
  _serverRetryMs?: number;
  _abortController?: AbortController;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
}

/** Installs the direct reader on `transport` (a no-op on an SDK without the handler it replaces). */
export function readEventStreamsDirectly(transport: StreamableHTTPClientTransport): void {
  const internals = transport as unknown as TransportInternals;
  const sdkHandler = internals._handleSseStream;
  if (typeof sdkHandler !== "function" || typeof internals._scheduleReconnection !== "function") return;
  internals._handleSseStream = (stream, options, isReconnectable) => {
    const direct = stream ? claimNodeBody(stream) : undefined;
    if (!direct) return sdkHandler.call(internals, stream, options, isReconnectable);
    void readStream(internals, direct.body, direct.signal, options, isReconnectable);
  };
}

/** The events of a Node stream of UTF-8 text, through the parser; settles when it ends or fails. */
function parseEvents(body: Readable, signal: AbortSignal | undefined, onEvent: (event: EventSourceMessage) => void, onRetry: (ms: number) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const decoder = new Utf8Decoder();
    const parser = createParser({ onEvent, onRetry });
    // A callback of the transport's that throws (onresumptiontoken, onerror) ends the stream as a
    // stream failure, as in the SDK's reader (not as an uncaught exception from a listener).
    const fed = (text: string): boolean => {
      try {
        if (text !== "") parser.feed(text);
        return true;
      } catch (error) {
        body.removeAllListeners("data");
        body.destroy();
        reject(error);
        return false;
      }
    };
    body.on("data", (chunk: Buffer) => void fed(decoder.write(chunk)));
    body.once("end", () => {
      if (fed(decoder.end())) resolve();
    });
    body.once("error", (error) => reject(failure(error, signal)));
  });
}

async function readStream(transport: TransportInternals, body: Readable, fetchSignal: AbortSignal | undefined, options: SseStreamOptions, isReconnectable: boolean): Promise<void> {
  const { onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd } = options;
  const isIntentionalAbort = () => transport._abortController?.signal.aborted === true || requestSignal?.aborted === true;
  let lastEventId: string | undefined;
  let hasPrimingEvent = false;
  let receivedResponse = false;
  const onEvent = (event: EventSourceMessage) => {
    if (event.id) {
      lastEventId = event.id;
      hasPrimingEvent = true;
      onresumptiontoken?.(event.id);
    }
    if (!event.data) return;
    if (event.event && event.event !== "message") return;
    try {
      const data: unknown = JSON.parse(event.data);
      // The common answer without zod (./result-response.ts); everything else as the SDK checks it.
      const common = commonResultResponse(data);
      const message = common ?? parseJSONRPCMessage(data);
      const response = common ?? (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message : undefined);
      if (response) {
        receivedResponse = true;
        if (replayMessageId !== undefined) response.id = replayMessageId;
      }
      transport.onmessage?.(message);
    } catch (error) {
      transport.onerror?.(error as Error);
    }
  };
  const reconnect = () =>
    transport._scheduleReconnection({ resumptionToken: lastEventId, onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd } as SseStreamOptions, 0);
  const shouldReconnect = () => (isReconnectable || hasPrimingEvent) && !receivedResponse && transport._abortController !== undefined && !isIntentionalAbort();
  try {
    await parseEvents(body, fetchSignal, onEvent, (ms) => (transport._serverRetryMs = ms));
    if (shouldReconnect()) reconnect();
    else if (!isIntentionalAbort()) onRequestStreamEnd?.();
  } catch (error) {
    if (isIntentionalAbort()) return;
    transport.onerror?.(new Error(`SSE stream disconnected: ${String(error)}`));
    if (!shouldReconnect()) {
      onRequestStreamEnd?.();
      return;
    }
    try {
      reconnect();
    } catch (failed) {
      transport.onerror?.(new Error(`Failed to reconnect: ${failed instanceof Error ? failed.message : String(failed)}`));
      onRequestStreamEnd?.();
    }
  }
}
