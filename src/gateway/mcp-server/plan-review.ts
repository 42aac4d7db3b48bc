/**
 * Plan mode through the `chat` tool: the person behind the MCP client confirms or edits the plan
 * before it runs (a form elicitation: the steps one per line, editable, and a yes/no), and the
 * plan's statuses as progress messages.
 */
import type { PlanReport, PlanReview } from "../../loop/index.ts";
import type { Elicit } from "./approval.ts";

type Steps = Parameters<PlanReview>[0];
type Step = Steps[number];

export function reviewRequest(steps: Steps): Record<string, unknown> {
  const lines = steps.map((s, i) => `${i + 1}. ${s.title}`).join("\n");
  return {
    mode: "form",
    message: `The agent wants to carry out this plan:\n${lines}\n\nRun it? You may edit the steps (one per line) first.`,
    requestedSchema: {
      type: "object",
      properties: {
        approve: { type: "boolean", title: "Run the plan", default: true },
        steps: { type: "string", title: "Steps, one per line", default: lines },
      },
      required: ["approve"],
    },
  };
}

/** The steps the person left (edited lines become new steps; unchanged ones keep their instruction). */
function editedSteps(text: string, steps: Steps): Step[] {
  const lines = text.split("\n").map((line) => line.replace(/^\s*\d+[.)]\s*/, "").trim()).filter((line) => line !== "");
  return lines.map((title) => steps.find((s) => s.title === title) ?? { title });
}

/** A review over elicitation; undefined when the client cannot be asked (the plan then runs as written). */
export function elicitingReview(elicit: Elicit | undefined, signal: AbortSignal): PlanReview | undefined {
  if (!elicit) return undefined;
  return async (steps) => {
    const answer = await elicit(reviewRequest(steps), signal);
    if (answer.action !== "accept" || answer.content?.["approve"] === false) return "cancel";
    const text = answer.content?.["steps"];
    if (typeof text !== "string") return [...steps];
    const edited = editedSteps(text, steps);
    return edited.length > 0 ? edited : "cancel";
  };
}

/** A progress message for a plan change. */
export function planProgress(plan: PlanReport): string {
  return `plan: ${plan.steps.map((s) => `${s.id}. ${s.title} [${s.status}]`).join("; ")}`;
}
