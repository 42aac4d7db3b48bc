/**
 * What the OpenAI-protocol adapters (Chat Completions, Responses) know about OpenAI's own model
 * names. Compatible servers use other names; these patterns only ever relax a rule for models
 * that are known to take a field, they never decide what a compatible server gets by name alone.
 */

/**
 * OpenAI's reasoning models (`o3`, `gpt-5`, `codex-mini`, `openai/o4-mini` through a router):
 * they refuse `max_tokens` wherever they are served, take `reasoning_effort` (Chat Completions)
 * or `reasoning` (Responses), and return encrypted reasoning on request.
 */
export const OPENAI_REASONING_MODEL = /(^|\/)(o\d|gpt-5|codex-mini)/;
