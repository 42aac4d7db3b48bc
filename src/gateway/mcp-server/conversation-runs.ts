/**
 * The `chat` runs in flight on this instance, by conversation, each with the inbox its loop reads
 * between tool calls (the loop's SteeringQueue): what the `steer` tool queues. In-process on
 * purpose: a message is for the run that is going on, which lives in one process.
 */
import type { Message } from "../../core/index.ts";
import type { SteeringQueue } from "../../loop/index.ts";

class Inbox implements SteeringQueue {
  private readonly steer: Message[] = [];
  private readonly follow: Message[] = [];

  push(kind: "steer" | "follow_up", message: Message): void {
    (kind === "steer" ? this.steer : this.follow).push(message);
  }

  steering(): Message[] {
    return this.steer.splice(0);
  }

  followUp(): Message[] {
    return this.follow.splice(0);
  }
}

export class ConversationRuns {
  private readonly running = new Map<string, Inbox>();

  /** The inbox of a new run; undefined when the conversation already has one going. */
  begin(tenant: string, id: string): SteeringQueue | undefined {
    const key = `${tenant}:${id}`;
    if (this.running.has(key)) return undefined;
    const inbox = new Inbox();
    this.running.set(key, inbox);
    return inbox;
  }

  end(tenant: string, id: string): void {
    this.running.delete(`${tenant}:${id}`);
  }

  /** Queues a user message for the conversation's run; false when none is going on here. */
  queue(tenant: string, id: string, kind: "steer" | "follow_up", text: string): boolean {
    const inbox = this.running.get(`${tenant}:${id}`);
    inbox?.push(kind, { role: "user", content: [{ type: "text", text }] });
    return inbox !== undefined;
  }
}
