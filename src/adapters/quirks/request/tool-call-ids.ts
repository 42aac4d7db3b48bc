/**
 * Mistral takes only tool-call ids of exactly 9 letters/digits. Other ids (OpenAI `call_…`,
 * ids the gateway synthesized) are mapped by a hash, the same way in the assistant's
 * `tool_calls` and in the tool messages' `tool_call_id`, so calls and results stay paired and a
 * growing conversation maps its earlier ids the same way every time. Mistral's own ids already
 * fit and pass unchanged, so responses need no mapping back.
 */
import { createHash } from "node:crypto";
import type { RequestStep } from "./context.ts";
import type { WireRequestMessage } from "./wire.ts";
import { flatMapped } from "../../../core/flat-mapped.ts";

const VALID = /^[a-zA-Z0-9]{9}$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function alnum9(id: string, salt: number): string {
  const digest = createHash("sha256").update(salt === 0 ? id : `${id}\u0000${salt}`).digest();
  let out = "";
  for (let i = 0; i < 9; i++) out += ALPHABET[digest[i]! % ALPHABET.length];
  return out;
}

/** Original id -> wire id for one request; a hash that clashes is salted until it does not. */
class IdMap {
  private readonly map = new Map<string, string>();
  private readonly used = new Set<string>();

  constructor(ids: string[]) {
    for (const id of ids.filter((i) => VALID.test(i))) this.claim(id, id);
    for (const id of ids) if (!this.map.has(id)) this.claim(id, this.fresh(id));
  }

  get(id: string): string {
    return this.map.get(id) ?? id;
  }

  private claim(id: string, wire: string): void {
    this.map.set(id, wire);
    this.used.add(wire);
  }

  private fresh(id: string): string {
    for (let salt = 0; ; salt++) {
      const candidate = alnum9(id, salt);
      if (!this.used.has(candidate)) return candidate;
    }
  }
}

function idsOf(messages: WireRequestMessage[]): string[] {
  return flatMapped(messages, (message) => [
    ...(message.tool_calls ?? []).map((call) => call.id),
    ...(message.tool_call_id === undefined ? [] : [message.tool_call_id]),
  ]);
}

export const alnum9ToolCallIds: RequestStep = (body) => {
  const ids = new IdMap(idsOf(body.messages));
  const messages = body.messages.map((message) => ({
    ...message,
    ...(message.tool_calls ? { tool_calls: message.tool_calls.map((call) => ({ ...call, id: ids.get(call.id) })) } : {}),
    ...(message.tool_call_id === undefined ? {} : { tool_call_id: ids.get(message.tool_call_id) }),
  }));
  return { ...body, messages };
};
