export { createAnthropicAdapter, DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS } from "./adapter.ts";
export { toWireParams, DEFAULT_MAX_TOKENS } from "./to-request.ts";
export { toWireTools } from "./tools.ts";
export { toAnthropicToolId } from "./tool-ids.ts";
export { fromMessage } from "./from-response.ts";
export { streamTranslation } from "./stream.ts";
export { fromAnthropicError } from "./errors.ts";
export { BUDGET_BY_EFFORT } from "./thinking.ts";
export type { WireParams } from "./wire.ts";
