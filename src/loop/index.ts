export { runAgentLoop, runAgentLoopBatches, FINAL_ANSWER_NOTE } from "./agent-loop.ts";
export { TURN_TEXT_SEPARATOR } from "./call-model.ts";
export { Compactor, conversationKey, planCut, transcript, turnStarts, type CompactionMemory, type CompactionReport, type CompactionState, type CompactionStrategy, type ContextOptions } from "./compaction.ts";
export { FIND_TOOLS, ToolOffer, type ToolSearchOptions, type ToolSearchReport } from "./tool-search.ts";
export { filterTools, limitResult, limitResults, patternMatcher, shrinkJson, type ResultLimit } from "./tool-views.ts";
export type * from "./types.ts";
export { SKIPPED_FOR_STEERING } from "./steering.ts";
export { runInMode, runInModeBatches, runPlanLoop } from "./plan-mode.ts";
export type { LoopMode, PlanOptions, PlanReport, PlanReview, PlanStep, PlanStepStatus } from "./plan-types.ts";
