export { runAgentLoop } from "./agent-loop.ts";
export { TURN_TEXT_SEPARATOR } from "./call-model.ts";
export type * from "./types.ts";
