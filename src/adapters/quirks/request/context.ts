import type { ChatRequest } from "../../../core/index.ts";
import type { QuirkSwitches } from "../types.ts";
import type { WireRequest } from "./wire.ts";

export interface RequestContext {
  /** The neutral request the body was built from (its blocks carry the provider data to replay). */
  request: ChatRequest;
  /** The adapter id: provider data is sent back only to the provider that produced it. */
  provider: string;
  quirks: QuirkSwitches;
}

/** One transformation of the wire body. Steps are pure: they return a new body. */
export type RequestStep = (body: WireRequest, context: RequestContext) => WireRequest;
