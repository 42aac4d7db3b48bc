/**
 * The recent requests the web view shows: a bounded ring in memory (`gateway.observability.
 * recentRequests`, default 200), oldest dropped first, with listeners told of every change so the
 * page updates live. Nothing here is shared between instances: each shows its own requests.
 */

/** One step on a request's timeline. Times are ms since the request arrived. */
export interface TimelineEntry {
  kind: "model" | "tool" | "retry" | "fallback" | "error" | "hidden_steps" | "client_tools";
  at: number;
  /** How long it took, once it ended (model and tool calls). */
  ms?: number;
  turn?: number;
  /** A model call: who was asked, what answered. */
  provider?: string;
  model?: string;
  responseModel?: string;
  inputTokens?: number;
  outputTokens?: number;
  finish?: string;
  /** A tool call: the exposed name, its server and the server's own name for it. */
  name?: string;
  server?: string;
  tool?: string;
  /** Redacted excerpts. */
  args?: string;
  result?: string;
  isError?: boolean;
  /** A retry, fallback or error: what happened. */
  message?: string;
  attempt?: number;
  delayMs?: number;
  from?: string;
  to?: string;
  status?: number;
  /** Hidden steps kept, client tool calls handed back: what they were. */
  detail?: string;
}

export interface RequestSummary {
  id: string;
  /** Increases with every request of this process (the page orders by it). */
  seq: number;
  door: string;
  method: string;
  path: string;
  /** The key's name (when keys are set). */
  key?: string;
  model?: string;
  provider?: string;
  answeredBy?: string;
  answeredModel?: string;
  stream?: boolean;
  state: "running" | "done" | "failed";
  status?: number;
  stop?: string;
  turns: number;
  toolCalls: number;
  clientToolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Epoch ms. */
  startedAt: number;
  ms?: number;
  error?: string;
  traceId?: string;
}

export interface RequestRecord extends RequestSummary {
  timeline: TimelineEntry[];
}

export type RingListener = (record: RequestRecord) => void;

/** A timeline keeps at most this many entries (a request with hundreds of tool calls keeps its first ones, and says so). */
export const MAX_TIMELINE = 500;

export class RequestRing {
  private readonly records: (RequestRecord | undefined)[];
  private next = 0;
  private seq = 0;
  private readonly listeners = new Set<RingListener>();

  constructor(readonly size: number) {
    this.records = new Array<RequestRecord | undefined>(size);
  }

  /** Adds a request (the oldest goes when full) and returns its record, numbered. */
  add(record: Omit<RequestRecord, "seq">): RequestRecord {
    const full = record as RequestRecord;
    full.seq = ++this.seq;
    this.records[this.next] = full;
    this.next = (this.next + 1) % this.size;
    this.changed(full);
    return full;
  }

  /** Tells the listeners (the open pages) that a record changed. */
  changed(record: RequestRecord): void {
    if (this.listeners.size === 0) return;
    for (const listener of this.listeners) listener(record);
  }

  /** Newest first. */
  list(): RequestRecord[] {
    const out: RequestRecord[] = [];
    for (let i = 1; i <= this.size; i++) {
      const record = this.records[(this.next - i + this.size) % this.size];
      if (record) out.push(record);
    }
    return out;
  }

  get(id: string): RequestRecord | undefined {
    // Newest first: a client that reuses an x-request-id sees its latest request.
    return this.list().find((record) => record.id === id);
  }

  subscribe(listener: RingListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A record without its timeline (the list's rows). */
export function summary(record: RequestRecord): RequestSummary {
  const { timeline: _timeline, ...rest } = record;
  return rest;
}
