/**
 * Plan mode, composed of the agent loop: a first model call writes a plan (structured output,
 * validated: plan-prompts.ts), which a person may confirm or edit (`review`); each step then
 * runs as a bounded agent loop of its own with the tools; every status change (pending, running,
 * done, failed, skipped) is a `plan` event and a line of reasoning text; a failed step leads to
 * one re-plan of what remains; a last call, streamed, writes the answer from the steps' results.
 * The client's own tools are not offered in plan mode (its steps run inside the gateway).
 */
import { addUsage, emptyUsage, type AssistantMessage, type ChatRequest, type ChatResult, type Message, type ToolSet, type Usage } from "../core/index.ts";
import { runAgentLoop, runAgentLoopBatches } from "./agent-loop.ts";
import { relay } from "../core/relay.ts";
import { planFormat, planPrompt, planText, readPlan, replanPrompt, STEP_FAILED, stepPrompt, summaryPrompt, user, type WrittenStep } from "./plan-prompts.ts";
import type { LoopMode, PlanOptions, PlanReport, PlanStep } from "./plan-types.ts";
import type { LoopBatches, LoopEvent, LoopOptions, LoopOutcome, ToolExecution } from "./types.ts";

interface Tally {
  usage: Usage;
  turns: number;
  tools: ToolExecution[];
  /** The reasoning text the plan's narration amounts to. */
  narration: string;
}

const NO_TOOLS: ToolSet = {
  definitions: () => [],
  has: () => false,
  call: async (call) => ({ type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: "Error: no tools in this call." }], isError: true }),
};

const textOf = (message: AssistantMessage) => message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("").trim();

/** The loop of a request in its mode. */
export function runInMode(options: LoopOptions, mode: LoopMode | undefined, plan?: PlanOptions): AsyncGenerator<LoopEvent, LoopOutcome> {
  return mode === "plan" ? runPlanLoop(options, plan) : runAgentLoop(options);
}

/** The same loop in batches (types.ts LoopBatches); plan mode's events go one per batch. */
export function runInModeBatches(options: LoopOptions, mode: LoopMode | undefined, plan?: PlanOptions): LoopBatches {
  // Each of plan mode's events a batch of its own.
  return mode === "plan" ? relay(runPlanLoop(options, plan), (event) => [[event]]) : runAgentLoopBatches(options);
}


export async function* runPlanLoop(options: LoopOptions, plan: PlanOptions = {}): AsyncGenerator<LoopEvent, LoopOutcome> {
  const maxSteps = plan.maxSteps ?? 8;
  // The steps run inside the gateway: the client's own tools have no place in them.
  const base: LoopOptions = { ...options, request: withoutClientTools(options.request) };
  const tally: Tally = { usage: emptyUsage(), turns: 0, tools: [], narration: "" };
  const messages = base.request.messages;
  const tools = base.tools.definitions(base.schemaTarget);
  let written = yield* writePlan(base, [...messages, user(planPrompt(tools, maxSteps))], maxSteps, tally);
  if (plan.review) {
    const reviewed = await plan.review(written);
    if (reviewed === "cancel") return yield* cancelled(tally);
    written = reviewed;
  }
  const report: PlanReport = { steps: written.map((s, i) => stepOf(s, i + 1)), replanned: false };
  yield* announce(report, planText(report.steps, "Plan:"), tally);
  for (let index = 0; index < report.steps.length; index++) {
    const step = report.steps[index]!;
    if (step.status === "skipped") continue;
    step.status = "running";
    yield* announce(report, `Step ${step.id} running: ${step.title}\n`, tally);
    yield* runStep(base, messages, report, step, plan.stepMaxIterations ?? base.maxIterations, tally);
    // A failed step's plan is over: what follows it is skipped (and re-planned, once).
    if (failed(step)) for (const rest of report.steps.slice(index + 1)) rest.status = "skipped";
    yield* announce(report, `Step ${step.id} ${step.status}${step.result ? `: ${firstLine(step.result)}` : ""}\n`, tally);
    if (!failed(step) || report.replanned) continue;
    report.replanned = true;
    const next = yield* writePlan(base, [...messages, user(replanPrompt(report.steps, step, tools, maxSteps))], maxSteps, tally);
    report.steps.push(...next.map((s, i) => stepOf(s, report.steps.length + i + 1)));
    yield* announce(report, planText(report.steps.slice(-next.length), "New plan for the rest:"), tally);
  }
  return yield* summarize(base, messages, report, tally);
}

function withoutClientTools(request: ChatRequest): ChatRequest {
  const { tools: _tools, toolChoice: _choice, ...rest } = request;
  return rest;
}

const stepOf = (written: WrittenStep, id: number): PlanStep => ({ id, title: written.title, ...(written.instruction ? { instruction: written.instruction } : {}), status: "pending" });

/** (A function: the status changes inside runStep, where the compiler's narrowing cannot see it.) */
const failed = (step: PlanStep) => step.status === "failed";

const firstLine = (text: string) => text.split("\n")[0]!.slice(0, 200);

function count(tally: Tally, outcome: { usage: Usage; turns: number; tools: ToolExecution[] }): void {
  tally.usage = addUsage(tally.usage, outcome.usage);
  tally.turns += outcome.turns;
  tally.tools.push(...outcome.tools);
}

/** One model call for the plan (no tools, the plan's response format); asked again once if the plan is unreadable. */
async function* writePlan(options: LoopOptions, messages: Message[], maxSteps: number, tally: Tally): AsyncGenerator<LoopEvent, WrittenStep[]> {
  let conversation = messages;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const request: ChatRequest = { ...options.request, messages: conversation, tools: [], responseFormat: planFormat(maxSteps) };
    delete request.parallelToolCalls;
    tally.turns++;
    yield { type: "turn_start", turn: tally.turns };
    const result: ChatResult = await options.model.complete(request, options.signal);
    tally.usage = addUsage(tally.usage, result.usage);
    yield { type: "usage", usage: result.usage };
    yield { type: "model_response", turn: tally.turns, result };
    const plan = readPlan(textOf(result.message), maxSteps);
    if (typeof plan !== "string") return plan;
    conversation = [...messages, result.message, user(`That plan cannot be used: ${plan}. Write it again, JSON only.`)];
  }
  // Still no plan: one step, the request itself — the loop as it would run without plan mode.
  return [{ title: "Answer the request", instruction: "Do what the request asks, with the tools as needed." }];
}

/** A change of the plan: the `plan` event, and its line of reasoning text (a block of its own). */
async function* announce(report: PlanReport, text: string, tally: Tally): AsyncGenerator<LoopEvent> {
  tally.narration += text;
  yield { type: "plan", plan: structuredClone(report) };
  yield { type: "reasoning_start" };
  yield { type: "reasoning_delta", delta: text };
  yield { type: "reasoning_end", block: { type: "reasoning", text } };
}

/** Runs one step as a bounded loop of its own; sets its status and result. */
async function* runStep(options: LoopOptions, messages: Message[], report: PlanReport, step: PlanStep, maxIterations: number, tally: Tally): AsyncGenerator<LoopEvent> {
  const loop = runAgentLoop({ ...options, request: { ...options.request, messages: [...messages, user(stepPrompt(report.steps, step))] }, stream: false, maxIterations, finalAnswer: false });
  let outcome: LoopOutcome | undefined;
  try {
    for (let next = await loop.next(); ; next = await loop.next()) {
      if (next.done) {
        outcome = next.value;
        break;
      }
      // The step's own answer is not the client's: only its tool activity and turns pass on.
      if (next.value.type !== "done" && next.value.type !== "error") yield next.value;
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    step.status = "failed";
    step.result = error instanceof Error ? error.message : String(error);
    return;
  }
  count(tally, outcome);
  const text = textOf(outcome.message);
  if (outcome.stopReason !== "stop") {
    step.status = "failed";
    step.result = `the step stopped (${outcome.stopReason}) before it was done${text ? `: ${text}` : ""}`;
  } else if (text.startsWith(STEP_FAILED)) {
    step.status = "failed";
    step.result = text.slice(STEP_FAILED.length).trim();
  } else {
    step.status = "done";
    step.result = text;
  }
}

/** The last call: the answer from the steps' results, streamed as the loop streams text. */
async function* summarize(options: LoopOptions, messages: Message[], report: PlanReport, tally: Tally): AsyncGenerator<LoopEvent, LoopOutcome> {
  const loop = runAgentLoop({ ...options, request: { ...options.request, messages: [...messages, user(summaryPrompt(report.steps))] }, tools: NO_TOOLS, maxIterations: 1, finalAnswer: false });
  let outcome: LoopOutcome;
  for (let next = await loop.next(); ; next = await loop.next()) {
    if (next.done) {
      outcome = next.value;
      break;
    }
    if (next.value.type !== "done") yield next.value;
  }
  count(tally, outcome);
  const answer: AssistantMessage = { role: "assistant", content: [{ type: "reasoning", text: tally.narration }, { type: "text", text: textOf(outcome.message) }] };
  const result: LoopOutcome = { ...outcome, message: answer, newMessages: [answer], usage: tally.usage, turns: tally.turns, tools: tally.tools, plan: report };
  yield { type: "done", outcome: result };
  return result;
}

async function* cancelled(tally: Tally): AsyncGenerator<LoopEvent, LoopOutcome> {
  const answer: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "The plan was declined: nothing was run." }] };
  const last: ChatResult = { id: "plan-cancelled", model: "", message: answer, stopReason: "stop", usage: emptyUsage() };
  const result: LoopOutcome = { stopReason: "cancelled", message: answer, newMessages: [answer], clientToolCalls: [], usage: tally.usage, turns: tally.turns, tools: [], last, plan: { steps: [], replanned: false } };
  yield { type: "done", outcome: result };
  return result;
}
