/** Plan mode's vocabulary (plan-mode.ts): the plan as the client sees it, step by step. */
/** How a request's loop runs: the agent loop, or plan-then-execute (plan-mode.ts). */
export type LoopMode = "agent" | "plan";

export type PlanStepStatus = "pending" | "running" | "done" | "failed" | "skipped";

export interface PlanStep {
  /** 1, 2, … in the order the steps run (a re-plan's steps continue the numbering). */
  id: number;
  title: string;
  /** What the step must do, in the plan's words. */
  instruction?: string;
  status: PlanStepStatus;
  /** The step's result (done) or why it failed. */
  result?: string;
}

export interface PlanReport {
  steps: PlanStep[];
  /** Whether a failed step led to a new plan of the remaining steps. */
  replanned: boolean;
}

/** Lets a person confirm or edit the plan before it runs (the MCP `chat` tool: an elicitation). */
export type PlanReview = (steps: readonly { title: string; instruction?: string }[]) => Promise<{ title: string; instruction?: string }[] | "cancel">;

export interface PlanOptions {
  /** Steps a plan may have at most (default 8). */
  maxSteps?: number;
  /** Model calls each step may make (default: the loop's maxIterations). */
  stepMaxIterations?: number;
  review?: PlanReview;
}
