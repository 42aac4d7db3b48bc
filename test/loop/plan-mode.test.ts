/**
 * Plan mode (src/loop/plan-mode.ts) with an in-memory model and tools: the plan written as
 * structured output, each step a loop of its own, statuses in order, one re-plan after a failed
 * step, the summary last; an unreadable plan asked again; a declined review.
 */
import { describe, expect, it } from "vitest";
import { runPlanLoop, type LoopEvent, type LoopOptions, type LoopOutcome, type PlanReport } from "../../src/loop/index.ts";
import { call, MemoryTools, ScriptedModel, text } from "../helpers/scripted-model.ts";

const plan = (...titles: string[]) => [text(JSON.stringify({ steps: titles.map((title) => ({ title, instruction: `do ${title}` })) }))];

function options(model: ScriptedModel, tools: MemoryTools): LoopOptions {
  return { model, schemaTarget: "openai", request: { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "the task" }] }] }, tools, stream: false, maxIterations: 4 };
}

async function run(loop: AsyncGenerator<LoopEvent, LoopOutcome>): Promise<{ events: LoopEvent[]; outcome: LoopOutcome }> {
  const events: LoopEvent[] = [];
  for (;;) {
    const step = await loop.next();
    if (step.done) return { events, outcome: step.value };
    events.push(step.value);
  }
}

/** Each plan event as "id:status" lines, the changes only. */
function statuses(events: LoopEvent[]): string[] {
  return events.filter((e): e is { type: "plan"; plan: PlanReport } => e.type === "plan").map((e) => e.plan.steps.map((s) => `${s.id}:${s.status}`).join(" "));
}

describe("plan mode", () => {
  it("plans, runs each step, re-plans once after a failed step, and summarizes", async () => {
    const tools = new MemoryTools({ fetch_data: () => "42 rows" });
    const model = new ScriptedModel([
      plan("A", "B", "C"),
      [call("c1", "fetch_data")],
      [text("A gave 42 rows")],
      [text("STEP FAILED: B needs a file that is missing")],
      plan("B2"),
      [text("B2 done another way")],
      [text("Here is the answer.")],
    ]);
    const { events, outcome } = await run(runPlanLoop(options(model, tools)));
    // The plan call carried the plan's schema and no tools; the steps the tools.
    expect(model.requests[0]!.responseFormat).toMatchObject({ type: "json_schema", name: "plan" });
    expect(model.requests[0]!.tools).toEqual([]);
    expect(model.requests[1]!.tools!.map((t) => t.name)).toEqual(["fetch_data"]);
    expect(statuses(events)).toEqual([
      "1:pending 2:pending 3:pending",
      "1:running 2:pending 3:pending",
      "1:done 2:pending 3:pending",
      "1:done 2:running 3:pending",
      "1:done 2:failed 3:skipped",
      "1:done 2:failed 3:skipped 4:pending",
      "1:done 2:failed 3:skipped 4:running",
      "1:done 2:failed 3:skipped 4:done",
    ]);
    expect(outcome.plan).toMatchObject({ replanned: true, steps: [{ result: "A gave 42 rows" }, { result: "B needs a file that is missing" }, { title: "C" }, { title: "B2", result: "B2 done another way" }] });
    // The re-plan was told what failed and why.
    const replan = model.requests[4]!.messages.at(-1)!;
    expect(JSON.stringify(replan)).toContain("Step 2 failed: B needs a file that is missing");
    // The summary was written from the results, and is the answer.
    expect(JSON.stringify(model.requests[6]!.messages.at(-1))).toContain("4. [done] B2 — B2 done another way");
    expect(outcome.message.content.at(-1)).toEqual(text("Here is the answer."));
    expect(outcome.message.content[0]).toMatchObject({ type: "reasoning", text: expect.stringContaining("Plan:\n1. A\n2. B\n3. C\n") });
    expect(outcome.stopReason).toBe("stop");
    expect(outcome.turns).toBe(7);
    expect(outcome.tools.map((t) => t.call.name)).toEqual(["fetch_data"]);
    expect(events.filter((e) => e.type === "tool_start")).toHaveLength(1);
  });

  it("asks again for a plan it cannot read, then falls back to one step", async () => {
    const model = new ScriptedModel([[text("first I will look around")], [text("{\"steps\": []}")], [text("did it")], [text("answer")]]);
    const { outcome } = await run(runPlanLoop(options(model, new MemoryTools({}))));
    expect(JSON.stringify(model.requests[1]!.messages.at(-1))).toContain("That plan cannot be used: the plan is not JSON");
    expect(outcome.plan!.steps.map((s) => [s.title, s.status])).toEqual([["Answer the request", "done"]]);
  });

  it("runs the plan a review edited, and nothing when it is declined", async () => {
    const edited = new ScriptedModel([plan("A", "B"), [text("X done")], [text("answer")]]);
    const { outcome } = await run(runPlanLoop(options(edited, new MemoryTools({})), { review: async () => [{ title: "X" }] }));
    expect(outcome.plan!.steps.map((s) => s.title)).toEqual(["X"]);
    const declined = new ScriptedModel([plan("A")]);
    const result = await run(runPlanLoop(options(declined, new MemoryTools({})), { review: async () => "cancel" }));
    expect(result.outcome.stopReason).toBe("cancelled");
    expect(declined.requests).toHaveLength(1);
  });
});
