/**
 * What plan mode asks the model, and how it reads the plan: structured output (a JSON schema
 * the request carries as its response format, for the providers that enforce it), validated
 * here with zod whatever the provider did.
 */
import { z } from "zod";
import type { Message, ResponseFormat, ToolDefinition } from "../core/index.ts";
import type { PlanStep } from "./plan-types.ts";

export const STEP_FAILED = "STEP FAILED:";

const planSchema = z.strictObject({
  steps: z
    .array(z.strictObject({ title: z.string().trim().min(1).max(200), instruction: z.string().max(2000).optional() }))
    .min(1, "at least one step"),
});

export type WrittenStep = z.infer<typeof planSchema>["steps"][number];

export function planFormat(maxSteps: number): ResponseFormat {
  return {
    type: "json_schema",
    name: "plan",
    strict: true,
    schema: {
      type: "object",
      properties: {
        steps: {
          type: "array",
          maxItems: maxSteps,
          items: {
            type: "object",
            properties: { title: { type: "string" }, instruction: { type: "string" } },
            required: ["title", "instruction"],
            additionalProperties: false,
          },
        },
      },
      required: ["steps"],
      additionalProperties: false,
    },
  };
}

export const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

function toolList(tools: readonly ToolDefinition[]): string {
  return tools.length === 0 ? "(none)" : tools.map((t) => `- ${t.name}${t.description ? `: ${t.description.split("\n")[0]}` : ""}`).join("\n");
}

export function planPrompt(tools: readonly ToolDefinition[], maxSteps: number): string {
  return (
    "Before doing anything, write a plan for the request above: at most " +
    `${maxSteps} steps, each one a piece of work that the tools below can do or that you can write yourself. ` +
    'Answer with JSON only, in this shape: {"steps": [{"title": "…", "instruction": "what to do in this step, precisely"}]}.\n' +
    `Tools:\n${toolList(tools)}`
  );
}

export function replanPrompt(report: readonly PlanStep[], failed: PlanStep, tools: readonly ToolDefinition[], maxSteps: number): string {
  return (
    `The plan so far, with what each step gave:\n${describe(report)}\n\nStep ${failed.id} failed: ${failed.result ?? "no reason given"}.\n` +
    `Write a new plan for what remains of the request (not the steps that are done): at most ${maxSteps} steps, JSON only, ` +
    'in this shape: {"steps": [{"title": "…", "instruction": "…"}]}.\n' +
    `Tools:\n${toolList(tools)}`
  );
}

export function stepPrompt(report: readonly PlanStep[], step: PlanStep): string {
  return (
    `You are carrying out a plan for the request above.\nThe plan:\n${describe(report)}\n\n` +
    `Now do step ${step.id} only: ${step.title}${step.instruction ? ` — ${step.instruction}` : ""}\n` +
    `Use the tools as needed, then answer with this step's result in a few sentences. If the step cannot be done, answer "${STEP_FAILED} <why>".`
  );
}

export function summaryPrompt(report: readonly PlanStep[]): string {
  return `The plan for the request above has been carried out:\n${describe(report)}\n\nNow write the answer to the request for the user, from these results.`;
}

function describe(steps: readonly PlanStep[]): string {
  return steps.map((s) => `${s.id}. [${s.status}] ${s.title}${s.result ? ` — ${s.result}` : ""}`).join("\n");
}

/** The plan a model wrote (JSON, possibly in a code fence), or what is wrong with it. */
export function readPlan(text: string, maxSteps: number): WrittenStep[] | string {
  const body = text.trim().replace(/^```(?:json)?\s*/i, "").replace(/```$/, "").trim();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return `the plan is not JSON (${(error as Error).message})`;
  }
  const parsed = planSchema.safeParse(json);
  if (!parsed.success) return `the plan does not have the expected shape: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`;
  return parsed.data.steps.slice(0, maxSteps);
}

/** The plan as reasoning text: the steps, then each status change on its own line. */
export function planText(steps: readonly PlanStep[], heading: string): string {
  return `${heading}\n${steps.map((s) => `${s.id}. ${s.title}`).join("\n")}\n`;
}
