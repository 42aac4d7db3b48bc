/**
 * Steering a running loop (src/loop/steering.ts) with an in-memory model and tools: a steering
 * message lands between two tool calls (the rest of the turn skipped, the model sees it next);
 * a follow-up waits until the loop would stop.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/index.ts";
import { runAgentLoop, type LoopEvent, type LoopOptions, type LoopOutcome, type SteeringQueue } from "../../src/loop/index.ts";
import { SKIPPED_FOR_STEERING } from "../../src/loop/steering.ts";
import { call, MemoryTools, ScriptedModel, text } from "../helpers/scripted-model.ts";

const user = (value: string): Message => ({ role: "user", content: [{ type: "text", text: value }] });

/** A queue the test fills; each read takes everything. */
class Queue implements SteeringQueue {
  steer: Message[] = [];
  follow: Message[] = [];
  steering() {
    return this.steer.splice(0);
  }
  followUp() {
    return this.follow.splice(0);
  }
}

async function run(options: LoopOptions): Promise<{ events: LoopEvent[]; outcome: LoopOutcome }> {
  const events: LoopEvent[] = [];
  const loop = runAgentLoop(options);
  for (;;) {
    const step = await loop.next();
    if (step.done) return { events, outcome: step.value };
    events.push(step.value);
  }
}

function options(model: ScriptedModel, tools: MemoryTools, steering: SteeringQueue): LoopOptions {
  return { model, schemaTarget: "openai", request: { model: "m", messages: [user("go")] }, tools, stream: false, maxIterations: 10, steering };
}

describe("steering", () => {
  it("delivers a steering message between two calls, skipping the rest of the turn", async () => {
    const queue = new Queue();
    const tools = new MemoryTools({
      first: () => {
        // The user speaks while the first call runs.
        queue.steer.push(user("stop, do B instead"));
        return "first done";
      },
      second: () => "should not run",
    });
    const model = new ScriptedModel([[call("c1", "first"), call("c2", "second")], [text("doing B")]]);
    const { outcome, events } = await run(options(model, tools, queue));
    expect(tools.calls.map((c) => c.name)).toEqual(["first"]);
    expect(outcome.tools.map((t) => [t.call.id, t.result.isError])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
    expect(outcome.tools[1]!.result.content).toEqual([{ type: "text", text: SKIPPED_FOR_STEERING }]);
    // The model's next request: the results (the skipped one said so), then the user's message.
    expect(model.requests[1]!.messages.slice(2).map((m) => m.role)).toEqual(["tool", "user"]);
    expect(model.requests[1]!.messages.at(-1)).toEqual(user("stop, do B instead"));
    expect(events.filter((e) => e.type === "user_message")).toEqual([{ type: "user_message", turn: 1, kind: "steer", message: user("stop, do B instead") }]);
    expect(outcome.stopReason).toBe("stop");
    expect(outcome.newMessages.map((m) => m.role)).toEqual(["assistant", "tool", "user", "assistant"]);
  });

  it("runs a steerable turn's calls one after another", async () => {
    const order: string[] = [];
    const slow = (name: string) => async () => {
      order.push(`${name} start`);
      await new Promise((resolve) => setImmediate(resolve));
      order.push(`${name} end`);
      return name;
    };
    const tools = new MemoryTools({ a: slow("a"), b: slow("b") });
    const model = new ScriptedModel([[call("c1", "a"), call("c2", "b")], [text("ok")]]);
    await run(options(model, tools, new Queue()));
    expect(order).toEqual(["a start", "a end", "b start", "b end"]);
  });

  it("keeps a follow-up until the loop would stop, then goes on with it", async () => {
    const queue = new Queue();
    const tools = new MemoryTools({
      first: () => {
        queue.follow.push(user("and then summarize"));
        return "done";
      },
    });
    const model = new ScriptedModel([[call("c1", "first")], [text("first answer")], [text("the summary")]]);
    const { outcome, events } = await run(options(model, tools, queue));
    // Not delivered after the tool call: the second request ends with the tool result.
    expect(model.requests[1]!.messages.at(-1)!.role).toBe("tool");
    expect(model.requests[2]!.messages.slice(-2)).toEqual([{ role: "assistant", content: [text("first answer")] }, user("and then summarize")]);
    expect(events.filter((e) => e.type === "user_message").map((e) => (e as { kind: string }).kind)).toEqual(["follow_up"]);
    expect(outcome.turns).toBe(3);
    expect(outcome.message.content).toEqual([text("first answer\n\nthe summary")]);
  });
});
