export { createOpenAIResponsesAdapter, DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS } from "./adapter.ts";
export { toWireParams, ENCRYPTED_REASONING, type RequestContext } from "./to-request.ts";
export { toInputItems } from "./to-input.ts";
export { toWireTools } from "./tools.ts";
export { fromResponse, toResult } from "./from-response.ts";
export { streamTranslation } from "./stream.ts";
export { responseStreamBatches } from "./sse-events.ts";
export { fromOpenAIResponsesError } from "./errors.ts";
export type { WireParams, WireInputItem, WireStreamEvent } from "./wire.ts";
