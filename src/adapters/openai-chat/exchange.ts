/**
 * One model call with the provider's quirks applied: the single place where the quirk layer
 * meets the base translation. Before sending, the body built from the neutral request goes
 * through the request steps; after receiving, the provider's message or chunks go through the
 * response steps before the base reads them, and the neutral result gets the provider data the
 * steps found. Errors pass the same way out.
 */
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import type { ChatRequest, ChatResult, GatewayError, StreamEvent } from "../../core/index.ts";
import { renameFunctions, type RenamedRequest } from "../neutral-names.ts";
import { GEMINI_FUNCTION_NAMES, OPENAI_FUNCTION_NAMES, type FunctionNameRules } from "../quirks/function-names.ts";
import type { RequestQuirks, WireRequest } from "../quirks/request/index.ts";
import { ResponseQuirks } from "../quirks/response/index.ts";
import type { QuirkSwitches } from "../quirks/types.ts";
import type { StreamTranslation } from "../types.ts";
import { fromChatCompletion, type ResponseContext } from "./from-response.ts";
import { ChunkTranslator } from "./stream.ts";
import { STREAM_DONE } from "./sse-chunks.ts";
import { toChatCompletionParams, withStreaming, type RequestOptions } from "./to-request.ts";
import type { WireChunk } from "./wire-types.ts";

/** What stays the same for every call of one adapter (built once, in createOpenAIChatAdapter). */
export interface ExchangeOptions {
  provider: string;
  quirks: QuirkSwitches;
  /** The request steps of `quirks`, built for this provider. */
  requestQuirks: RequestQuirks;
  requestOptions: RequestOptions;
}

const NAME_RULES: Record<QuirkSwitches["functionNames"], FunctionNameRules | undefined> = {
  "as-is": undefined,
  openai: OPENAI_FUNCTION_NAMES,
  gemini: GEMINI_FUNCTION_NAMES,
};

export class Exchange {
  readonly body: ChatCompletionCreateParamsNonStreaming;
  private readonly response: ResponseQuirks;
  private readonly context: ResponseContext;
  /** Function names the provider refuses, renamed for it; its answer's names are mapped back. */
  private readonly names: RenamedRequest;

  constructor(request: ChatRequest, options: ExchangeOptions) {
    const { provider, quirks } = options;
    this.names = renameFunctions(request, NAME_RULES[quirks.functionNames]);
    const renamed = this.names.request;
    // The SDK's param types have no room for other providers' fields; the steps use a looser
    // shape of the same JSON, and the SDK sends whatever the object holds.
    const base = toChatCompletionParams(renamed, options.requestOptions) as unknown as WireRequest;
    const prepared = options.requestQuirks.apply(base, renamed);
    this.body = prepared.body as unknown as ChatCompletionCreateParamsNonStreaming;
    this.response = new ResponseQuirks({ provider, quirks, tools: prepared.body.tools ?? [] });
    this.context = { provider, model: request.model };
  }

  get streamingBody(): ChatCompletionCreateParamsStreaming {
    return withStreaming(this.body);
  }

  fromCompletion(body: unknown): ChatResult {
    return this.names.result(this.response.result(fromChatCompletion(this.response.completion(body), this.context)));
  }

  /**
   * The translation of a streamed answer (quirks, translation, quirks), synchronous: the adapter's
   * one generator yields what it returns, so an event passes no async layer of its own here.
   */
  streamTranslation(): StreamTranslation<WireChunk | typeof STREAM_DONE> {
    const translator = new ChunkTranslator(this.context);
    const out = (events: StreamEvent[]) => events.map((event) => this.names.event(this.response.event(event)));
    const translation = {
      push: (chunk: WireChunk | typeof STREAM_DONE) => {
        if (chunk !== STREAM_DONE) return out(translator.push(this.response.chunk(chunk)));
        // The answer is over at [DONE]: its closing events now, the body's end read behind.
        translation.finished = true;
        return out(translator.end());
      },
      finished: false,
      // A body that ends without [DONE] (some compatible servers) closes the answer at its end.
      end: () => out(translator.end()),
    };
    return translation;
  }

  error(error: GatewayError): GatewayError {
    return this.response.error(error);
  }
}
