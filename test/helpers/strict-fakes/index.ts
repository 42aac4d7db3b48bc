/** A strict fake per quirk preset. */
import { deepseekFamily } from "./deepseek.ts";
import { geminiFamily } from "./gemini.ts";
import { glmFamily } from "./glm.ts";
import { localFamily } from "./local.ts";
import { minimaxFamily } from "./minimax.ts";
import { mistralFamily } from "./mistral.ts";
import { openaiFamily } from "./openai.ts";
import type { FakeFamily } from "./strict-fake.ts";

export const FAMILIES: Record<string, () => FakeFamily> = {
  openai: () => openaiFamily("openai"),
  groq: () => openaiFamily("groq"),
  xai: () => openaiFamily("xai"),
  zhipu: glmFamily,
  mistral: mistralFamily,
  gemini: geminiFamily,
  deepseek: deepseekFamily,
  minimax: minimaxFamily,
  ollama: () => localFamily("ollama"),
  vllm: () => localFamily("vllm"),
  llamacpp: () => localFamily("llamacpp"),
  lmstudio: () => localFamily("lmstudio"),
};

export { startStrictFake, type FakeFamily, type Rejection, type StrictFake } from "./strict-fake.ts";
