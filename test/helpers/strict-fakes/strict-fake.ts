/**
 * A strict fake provider: a real HTTP server that refuses what the real provider refuses, with
 * the provider's own error status and text (docs/provider-quirks.md), and otherwise plays the
 * scripted conversation in that provider's wire style, streamed or not.
 */
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream, type RecordedRequest } from "../fake-upstream.ts";
import type { Body } from "./conversation.ts";
import { renderCompletion, renderSse, type ScriptedMessage, type StreamStyle } from "./render.ts";

export interface Rejection {
  status: number;
  /** The error body exactly as the provider sends it. */
  body: unknown;
  /** The provider's error text, for assertions. */
  message: string;
}

/** One rule of the provider: the rejection for a body that breaks it, else undefined. */
export type Rule = (body: Body) => Rejection | undefined;

export interface FakeFamily {
  name: string;
  rules: Rule[];
  reply(body: Body): ScriptedMessage;
  style: StreamStyle;
}

export interface StrictFake {
  family: FakeFamily;
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** The rejections sent, in order. */
  rejections: Rejection[];
  close(): Promise<void>;
}

export function firstRejection(rules: Rule[], body: Body): Rejection | undefined {
  for (const rule of rules) {
    const rejection = rule(body);
    if (rejection) return rejection;
  }
  return undefined;
}

export async function startStrictFake(family: FakeFamily): Promise<StrictFake> {
  const rejections: Rejection[] = [];
  const upstream: FakeUpstream = await startFakeUpstream((req, res) => {
    const body = req.body as Body;
    const rejection = firstRejection(family.rules, body);
    if (rejection) {
      rejections.push(rejection);
      sendJson(res, rejection.status, rejection.body);
      return;
    }
    const message = family.reply(body);
    if (body.stream) sendSse(res, renderSse(message, body.model, family.style));
    else sendJson(res, 200, renderCompletion(message, body.model));
  });
  return { family, url: `${upstream.url}/v1`, requests: upstream.requests, rejections, close: () => upstream.close() };
}

/** Builds the OpenAI-shaped error body most providers use. */
export function openAiError(status: number, message: string, fields: { type?: string; code?: string | null; param?: string | null } = {}): Rejection {
  return {
    status,
    message,
    body: { error: { message, type: fields.type ?? "invalid_request_error", param: fields.param ?? null, code: fields.code ?? null } },
  };
}
