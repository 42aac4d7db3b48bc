import { describe, expect, it } from "vitest";
import { runAgentLoop, type LoopEvent, type LoopOptions, type LoopOutcome } from "../../src/loop/index.ts";
import { GatewayError } from "../../src/core/index.ts";
import { call, deferred, MemoryTools, ScriptedModel, text, type Reply } from "../helpers/scripted-model.ts";

const clientTool = { name: "client_lookup", description: "runs on the client", inputSchema: { type: "object", properties: {} } };

function options(model: ScriptedModel, tools: MemoryTools, extra: Partial<LoopOptions> = {}): LoopOptions {
  return {
    model,
    schemaTarget: "openai",
    request: { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] },
    tools,
    stream: false,
    maxIterations: 10,
    ...extra,
  };
}

async function run(opts: LoopOptions): Promise<{ events: LoopEvent[]; outcome: LoopOutcome }> {
  const events: LoopEvent[] = [];
  const loop = runAgentLoop(opts);
  for (;;) {
    const step = await loop.next();
    if (step.done) return { events, outcome: step.value };
    events.push(step.value);
  }
}

describe("agent loop", () => {
  it("answers directly when the model calls no tool", async () => {
    const model = new ScriptedModel([[text("hello")]]);
    const { outcome } = await run(options(model, new MemoryTools({})));
    expect(outcome.stopReason).toBe("stop");
    expect(outcome.message.content).toEqual([{ type: "text", text: "hello" }]);
    expect(outcome.turns).toBe(1);
  });

  it("runs MCP tool calls and feeds results back until the model answers; usage is summed", async () => {
    const tools = new MemoryTools({ weather: (args) => `sunny in ${String(args.city)}` });
    const model = new ScriptedModel([[text("checking"), call("c1", "weather", { city: "Oslo" })], [text("It is sunny.")]]);
    const { outcome, events } = await run(options(model, tools));
    expect(tools.calls.map((c) => c.arguments)).toEqual([{ city: "Oslo" }]);
    const second = model.requests[1]!;
    expect(second.messages.slice(1)).toEqual([
      { role: "assistant", content: [text("checking"), call("c1", "weather", { city: "Oslo" })] },
      { role: "tool", content: [{ type: "tool_result", callId: "c1", name: "weather", content: [{ type: "text", text: "sunny in Oslo" }], isError: false }] },
    ]);
    expect(second.tools!.map((t) => t.name)).toEqual(["weather"]);
    expect(outcome.message.content).toEqual([{ type: "text", text: "checking\n\nIt is sunny." }]);
    expect(outcome.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
    expect(outcome.tools).toHaveLength(1);
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ type: "tool_end", isError: false, turn: 1 });
  });

  it("runs the calls of one turn in parallel", async () => {
    const bothStarted = deferred();
    let started = 0;
    const slow = async () => {
      if (++started === 2) bothStarted.resolve();
      await bothStarted.promise; // resolves only once both calls are in flight at the same time
      return "done";
    };
    const tools = new MemoryTools({ a: slow, b: slow });
    const model = new ScriptedModel([[call("1", "a"), call("2", "b")], [text("ok")]]);
    const { outcome } = await run(options(model, tools));
    expect(outcome.stopReason).toBe("stop");
    expect(model.requests[1]!.messages[2]).toMatchObject({ role: "tool", content: [{ callId: "1" }, { callId: "2" }] });
  });

  it("hands client tool calls back after running the MCP calls of the same turn", async () => {
    const tools = new MemoryTools({ weather: () => "sunny" });
    const model = new ScriptedModel([[text("both"), call("m1", "weather"), call("c1", "client_lookup", { q: 1 })]]);
    const { outcome } = await run(options(model, tools, { request: { model: "m", messages: [], tools: [clientTool] } }));
    expect(outcome.stopReason).toBe("client_tools");
    expect(tools.calls.map((c) => c.id)).toEqual(["m1"]);
    expect(outcome.message.content).toEqual([text("both"), call("c1", "client_lookup", { q: 1 })]);
    expect(outcome.clientToolCalls.map((c) => c.id)).toEqual(["c1"]);
    // The hidden steps: the full assistant turn and the MCP result, ready to splice back.
    expect(outcome.newMessages).toHaveLength(2);
    expect(outcome.newMessages[0]).toMatchObject({ role: "assistant", content: [{}, { id: "m1" }, { id: "c1" }] });
    expect(outcome.newMessages[1]).toMatchObject({ role: "tool", content: [{ callId: "m1", isError: false }] });
    expect(model.requests[0]!.tools!.map((t) => t.name)).toEqual(["weather", "client_lookup"]);
  });

  it("turns unknown tools, thrown errors and unparsable arguments into error results the model sees", async () => {
    const tools = new MemoryTools({
      boom: () => {
        throw new Error("disk on fire");
      },
    });
    const broken = { ...call("3", "boom"), rawArguments: '{"a": ', argumentsError: "tool arguments are not valid JSON" };
    const model = new ScriptedModel([[call("1", "invented_tool"), call("2", "boom"), broken], [text("sorry")]]);
    const { outcome } = await run(options(model, tools));
    const results = (model.requests[1]!.messages[2] as { content: { isError: boolean; content: { text: string }[] }[] }).content;
    expect(results.map((r) => r.isError)).toEqual([true, true, true]);
    expect(results[0]!.content[0]!.text).toContain('no tool named "invented_tool"');
    expect(results[1]!.content[0]!.text).toContain("disk on fire");
    expect(results[2]!.content[0]!.text).toContain('You sent: {"a": ');
    expect(tools.calls).toHaveLength(1); // the broken call never reached the tool
    expect(outcome.stopReason).toBe("stop");
  });

  it("finishes clearly at maxIterations", async () => {
    const tools = new MemoryTools({ again: () => "more" });
    const model = new ScriptedModel([[call("x", "again")]]);
    const { outcome } = await run(options(model, tools, { maxIterations: 3 }));
    expect(outcome.stopReason).toBe("max_iterations");
    expect(outcome.turns).toBe(3);
    expect(model.requests).toHaveLength(3);
    expect(tools.calls).toHaveLength(2); // the last turn's calls are not run: nobody would read them
  });

  it("applies hooks: deny a call, rewrite a request, stop at turn end", async () => {
    const tools = new MemoryTools({ rm: () => "deleted", ls: () => "a b" });
    const model = new ScriptedModel([[call("1", "rm"), call("2", "ls")], [call("3", "ls")], [text("never")]]);
    const seen: string[] = [];
    const { outcome } = await run(
      options(model, tools, {
        hooks: {
          beforeModelCall: ({ request }) => ({ ...request, temperature: 0.1 }),
          beforeToolCall: ({ call: c }) => (c.name === "rm" ? { deny: "rm is not allowed" } : undefined),
          afterToolCall: ({ execution }) => void seen.push(execution.call.id),
          onTurnEnd: ({ turn }) => (turn === 2 ? { stop: true } : undefined),
        },
      }),
    );
    expect(tools.calls.map((c) => c.name)).toEqual(["ls", "ls"]);
    expect(seen.sort()).toEqual(["1", "2", "3"]);
    expect(model.requests.every((r) => r.temperature === 0.1)).toBe(true);
    const denied = (model.requests[1]!.messages[2] as { content: { isError: boolean; content: { text: string }[] }[] }).content[0]!;
    expect(denied.isError).toBe(true);
    expect(denied.content[0]!.text).toContain("rm is not allowed");
    expect(outcome.stopReason).toBe("hook");
  });

  it("aborts: the signal reaches the running tool and the loop ends with an error", async () => {
    const controller = new AbortController();
    const toolSawAbort = deferred();
    const tools = new MemoryTools({
      hang: (_args, context) =>
        new Promise<string>((_resolve, reject) => {
          context.signal!.addEventListener("abort", () => {
            toolSawAbort.resolve();
            reject(new Error("cancelled"));
          });
          controller.abort(new GatewayError("client went away", { status: 499, type: "api_error", code: "request_aborted" }));
        }),
    });
    const model = new ScriptedModel([[call("1", "hang")], [text("unreachable")]]);
    const events: LoopEvent[] = [];
    const loop = runAgentLoop(options(model, tools, { signal: controller.signal }));
    await expect(
      (async () => {
        for await (const event of loop) events.push(event);
      })(),
    ).rejects.toMatchObject({ code: "request_aborted" });
    await toolSawAbort.promise;
    expect(events.at(-1)).toMatchObject({ type: "error" });
    expect(model.requests).toHaveLength(1);
  });

  it("streams: text and reasoning of every turn forwarded as blocks, client calls surfaced, MCP calls not", async () => {
    const tools = new MemoryTools({ weather: () => "sunny" });
    const reply: Reply[] = [
      [{ type: "reasoning", text: "think" }, text("first"), call("m1", "weather")],
      [text("second"), call("c1", "client_lookup", { q: "x" })],
    ];
    const model = new ScriptedModel(reply);
    const { events, outcome } = await run(options(model, tools, { stream: true, request: { model: "m", messages: [], tools: [clientTool] } }));
    const deltas = events.filter((e) => e.type === "text_delta").map((e) => (e as { delta: string }).delta);
    // Each turn's text is its own block; joining turns into one text is a door's business.
    expect(deltas).toEqual(["fir", "st", "sec", "ond"]);
    expect(events.filter((e) => e.type.startsWith("text_") || e.type.startsWith("reasoning_") || e.type === "turn_start").map((e) => e.type)).toEqual([
      "turn_start", "reasoning_start", "reasoning_delta", "reasoning_end", "text_start", "text_delta", "text_delta", "text_end",
      "turn_start", "text_start", "text_delta", "text_delta", "text_end",
    ]);
    expect(events.filter((e) => e.type === "reasoning_delta")).toEqual([{ type: "reasoning_delta", delta: "think" }]);
    expect(events.filter((e) => e.type.startsWith("client_tool_call"))).toEqual([
      { type: "client_tool_call_start", index: 0, id: "c1", name: "client_lookup" },
      { type: "client_tool_call_delta", index: 0, delta: '{"q":"x"}' },
      { type: "client_tool_call_end", index: 0, call: call("c1", "client_lookup", { q: "x" }) },
    ]);
    expect(outcome.message.content).toEqual([
      { type: "reasoning", text: "think" },
      text("first\n\nsecond"),
      call("c1", "client_lookup", { q: "x" }),
    ]);
  });

  it("drops tool_choice and parallel_tool_calls when no tools exist, and relaxes a forced choice after turn 1", async () => {
    const model = new ScriptedModel([[text("ok")]]);
    await run(options(model, new MemoryTools({}), { request: { model: "m", messages: [], toolChoice: { type: "required" }, parallelToolCalls: false } }));
    expect(model.requests[0]!.toolChoice).toBeUndefined();
    expect(model.requests[0]!.parallelToolCalls).toBeUndefined();

    const forced = new ScriptedModel([[call("1", "t")], [text("done")]]);
    await run(options(forced, new MemoryTools({ t: () => "r" }), { request: { model: "m", messages: [], toolChoice: { type: "tool", name: "t" } } }));
    expect(forced.requests.map((r) => r.toolChoice)).toEqual([{ type: "tool", name: "t" }, { type: "auto" }]);
  });
});

describe("agent loop budget", () => {
  it("hands client calls back even on the last allowed turn", async () => {
    const tools = new MemoryTools({ weather: () => "sunny" });
    const model = new ScriptedModel([[call("m1", "weather"), call("c1", "client_lookup")]]);
    const { outcome } = await run(options(model, tools, { maxIterations: 1, request: { model: "m", messages: [], tools: [clientTool] } }));
    expect(outcome.stopReason).toBe("client_tools");
    expect(outcome.clientToolCalls.map((c) => c.id)).toEqual(["c1"]);
    expect(tools.calls.map((c) => c.id)).toEqual(["m1"]); // its MCP calls ran, so the history is complete
  });
});

describe("agent loop, streamed: the model's stream is left to end after its result", () => {
  it("reads the stream to its natural end (no early return() unwinding it), and answers with its result", async () => {
    const lifecycle: string[] = [];
    const result = { id: "r", model: "m", message: { role: "assistant" as const, content: [{ type: "text" as const, text: "hi" }] }, stopReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } };
    const model = {
      complete: () => Promise.reject(new Error("streamed only")),
      async *stream() {
        try {
          yield { type: "start" as const, id: "r", model: "m" };
          yield { type: "text_delta" as const, delta: "hi" };
          yield { type: "done" as const, result };
          // Reached only when the consumer asks for more after `done` (the stream's own end).
          lifecycle.push("ended");
        } finally {
          lifecycle.push("closed");
        }
      },
    };
    const { events, outcome } = await run({ ...options(new ScriptedModel([]), new MemoryTools({})), model, stream: true });
    expect(outcome.message.content).toEqual([{ type: "text", text: "hi" }]);
    expect(events.map((e) => e.type)).toEqual(["turn_start", "model_start", "text_delta", "usage", "model_response", "turn_end", "done"]);
    expect(lifecycle).toEqual(["ended", "closed"]);
  });
});

describe("agent loop, streamed: a stream that fails after its result", () => {
  it("answers with the result it already had (the failure came while the stream wound down)", async () => {
    const result = { id: "r", model: "m", message: { role: "assistant" as const, content: [{ type: "text" as const, text: "whole" }] }, stopReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } };
    const model = {
      complete: () => Promise.reject(new Error("streamed only")),
      async *stream() {
        yield { type: "text_delta" as const, delta: "whole" };
        yield { type: "done" as const, result };
        throw new Error("socket reset while draining");
      },
    };
    const { events, outcome } = await run({ ...options(new ScriptedModel([]), new MemoryTools({})), model, stream: true });
    expect(outcome.message.content).toEqual([{ type: "text", text: "whole" }]);
    expect(events.map((e) => e.type)).not.toContain("error");
  });
});
