/**
 * Resumability for Streamable HTTP: every SSE event of a session is kept (bounded) so a client
 * that reconnects with `Last-Event-ID` gets what it missed on that stream.
 */
import type { EventId, EventStore, JSONRPCMessage, StreamId } from "@modelcontextprotocol/server";

interface StoredEvent {
  streamId: StreamId;
  message: JSONRPCMessage;
}

export class MemoryEventStore implements EventStore {
  private readonly events = new Map<EventId, StoredEvent>();
  private counter = 0;

  /** Keeps the newest `maxEvents` events (oldest dropped first). */
  constructor(private readonly maxEvents = 1000) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    // Stream ids are UUIDs or "_GET_stream": "|" never occurs in them.
    const id = `${streamId}|${++this.counter}`;
    this.events.set(id, { streamId, message });
    while (this.events.size > this.maxEvents) this.events.delete(this.events.keys().next().value!);
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId ?? streamOf(eventId);
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = this.events.get(lastEventId)?.streamId ?? streamOf(lastEventId);
    if (streamId === undefined) return "";
    const after = sequenceOf(lastEventId);
    for (const [id, event] of this.events) {
      if (event.streamId !== streamId || sequenceOf(id) <= after) continue;
      // Priming events carry no message; there is nothing to replay for them.
      if (Object.keys(event.message).length === 0) continue;
      await send(id, event.message);
    }
    return streamId;
  }

  get size(): number {
    return this.events.size;
  }
}

function streamOf(eventId: EventId): StreamId | undefined {
  const bar = eventId.lastIndexOf("|");
  return bar > 0 ? eventId.slice(0, bar) : undefined;
}

function sequenceOf(eventId: EventId): number {
  const n = Number(eventId.slice(eventId.lastIndexOf("|") + 1));
  return Number.isFinite(n) ? n : 0;
}
