import type { StreamEvent, ToolCallBlock } from "../../core/index.ts";
import { synthesizeToolCallId, toToolCallBlock } from "./tool-call.ts";
import type { WireToolCall } from "./wire-types.ts";

interface PendingCall {
  /** Dense position in the message (0, 1, …), used as the event index. */
  position: number;
  id: string;
  name: string;
  args: string;
  /** Whether tool_call_start went out (it waits for the name). */
  started: boolean;
}

/**
 * Assembles streamed tool-call fragments into whole calls. Fragments are matched BY INDEX: the id
 * and name arrive only in the first fragment of an index, continuations carry arguments only
 * (some servers repeat `id:""` or `name:""` on them, which means "unchanged"). Servers that send
 * each call whole in one fragment without an `index` (Mistral) get one call per fragment that has
 * a new id. Wire indexes may be sparse (a proxy starting at 1); events use the dense position.
 */
export class ToolCallAssembler {
  private readonly calls: PendingCall[] = [];
  private readonly byIndex = new Map<number, PendingCall>();

  get count(): number {
    return this.calls.length;
  }

  /** Applies one fragment and returns the events it produces. */
  add(fragment: WireToolCall): StreamEvent[] {
    const existing = this.match(fragment);
    const call = existing ?? this.open(fragment);
    const args = fragment.function?.arguments ?? "";
    if (existing) {
      if (!call.started && fragment.id) call.id = fragment.id;
      if (!call.started && fragment.function?.name) call.name = fragment.function.name;
    }
    call.args += args;
    if (!call.started) return call.name === "" ? [] : this.start(call);
    return args === "" ? [] : [{ type: "tool_call_delta", index: call.position, id: call.id, delta: args }];
  }

  /** Ends every call (starting those still waiting for a name) and returns events and blocks. */
  finish(): { events: StreamEvent[]; calls: ToolCallBlock[] } {
    const events: StreamEvent[] = [];
    const calls: ToolCallBlock[] = [];
    for (const call of this.calls) {
      if (!call.started) events.push(...this.start(call));
      const block = toToolCallBlock(call.id, call.name, call.args);
      calls.push(block);
      events.push({ type: "tool_call_end", index: call.position, call: block });
    }
    return { events, calls };
  }

  /** The call a fragment continues, or undefined when it opens a new one. */
  private match(fragment: WireToolCall): PendingCall | undefined {
    const index = fragment.index;
    const candidate = typeof index === "number" ? this.byIndex.get(index) : this.calls.at(-1);
    if (!candidate) return undefined;
    return this.isNewCall(candidate, fragment) ? undefined : candidate;
  }

  /**
   * A fragment with its own id and name, on an index (or, without index, after a call) that
   * already has a different named call, is a new call: some servers send every whole call
   * at index 0, and index-less servers send one whole call per fragment.
   */
  private isNewCall(candidate: PendingCall, fragment: WireToolCall): boolean {
    return Boolean(fragment.id && fragment.function?.name && candidate.name !== "" && fragment.id !== candidate.id);
  }

  private open(fragment: WireToolCall): PendingCall {
    const call: PendingCall = {
      position: this.calls.length,
      id: fragment.id || synthesizeToolCallId(),
      name: fragment.function?.name ?? "",
      args: "",
      started: false,
    };
    this.calls.push(call);
    if (typeof fragment.index === "number") this.byIndex.set(fragment.index, call);
    return call;
  }

  /** tool_call_start, plus the argument text buffered while the name was unknown. */
  private start(call: PendingCall): StreamEvent[] {
    call.started = true;
    const events: StreamEvent[] = [{ type: "tool_call_start", index: call.position, id: call.id, name: call.name }];
    if (call.args !== "") events.push({ type: "tool_call_delta", index: call.position, id: call.id, delta: call.args });
    return events;
  }
}
