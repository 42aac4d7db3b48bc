/**
 * A fake Responses upstream as strict as OpenAI with `store: false`: it refuses (400, OpenAI's
 * error shape) any request whose input has a function call it issued without, before it, the
 * reasoning item it issued with that call (encrypted content byte-equal), a reasoning item it
 * never issued, a call without its output, or a request that would need server state. It plays
 * two turns of a reasoning item and a `lookup` call, then the answer ("Both steps done.").
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { sendJson, sendSse, type RecordedRequest } from "./fake-upstream.ts";

export type Item = { type: string; [key: string]: any };
type Body = { [key: string]: any };

const cipher = () => `gAAAAA${randomBytes(48).toString("base64url")}`;

export class StrictResponsesUpstream {
  /** The reasoning item issued with each call, by call id. */
  private readonly issued = new Map<string, { id: string; encrypted_content: string }>();
  private readonly reasoningIds = new Set<string>();
  readonly refusals: string[] = [];
  private responses = 0;

  handle = (req: RecordedRequest, res: ServerResponse): void => {
    const problem = this.problem(req.body);
    if (problem) {
      this.refusals.push(problem);
      sendJson(res, 400, { error: { message: problem, type: "invalid_request_error", param: "input", code: null } });
      return;
    }
    const answer = this.answer(req.body.input as Item[]);
    if (req.body.stream) sendEvents(res, this.events(answer));
    else sendJson(res, 200, answer);
  };

  private problem(body: { store?: unknown; include?: unknown; previous_response_id?: unknown; input: Item[] }): string | undefined {
    if (body.store !== false) return "This test upstream keeps nothing: send store: false.";
    if (body.previous_response_id !== undefined) return "Previous response cannot be used: store is false.";
    if (!Array.isArray(body.include) || !body.include.includes("reasoning.encrypted_content")) return "Reasoning must be asked back encrypted.";
    const input = body.input;
    for (const [index, item] of input.entries()) {
      if (item.type === "reasoning" && !this.reasoningIds.has(item["id"])) return `Item with id '${item["id"]}' not found. Items are not persisted when \`store\` is set to false.`;
      if (item.type !== "function_call") continue;
      const expected = this.issued.get(item["call_id"]);
      if (!input.slice(index + 1).some((later) => later.type === "function_call_output" && later["call_id"] === item["call_id"])) {
        return `No tool output found for function call ${item["call_id"]}.`;
      }
      if (!expected) continue; // a call of another provider's: nothing to pair it with
      // The nearest item before it that is not one of the same turn's calls or texts.
      let before = index - 1;
      while (before >= 0 && (input[before]!.type === "function_call" || (input[before]!.type === "message" && input[before]!["role"] === "assistant"))) before--;
      const reasoning = input[before];
      if (reasoning?.type !== "reasoning" || reasoning["id"] !== expected.id || reasoning["encrypted_content"] !== expected.encrypted_content) {
        return `Item '${item["call_id"]}' of type 'function_call' was provided without its required 'reasoning' item: '${expected.id}'.`;
      }
    }
    return undefined;
  }

  /** Two turns of a reasoning item and a call, then (the third) the answer. */
  private answer(input: Item[]): Body {
    const n = this.responses++;
    const step = input.filter((item) => item.type === "function_call_output").length;
    const reasoning = { id: `rs_${n}`, type: "reasoning", summary: [{ type: "summary_text", text: `Step ${step}` }], encrypted_content: cipher() };
    this.reasoningIds.add(reasoning.id);
    const output: Item[] = [reasoning];
    if (step < 2) {
      const call = { id: `fc_${n}`, type: "function_call", status: "completed", call_id: `call_${n}`, name: "lookup", arguments: JSON.stringify({ step }) };
      this.issued.set(call.call_id, { id: reasoning.id, encrypted_content: reasoning.encrypted_content });
      output.push(call);
    } else {
      output.push({ id: `msg_${n}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Both steps done.", annotations: [] }] });
    }
    return {
      id: `resp_${n}`,
      object: "response",
      model: "gpt-5-mini",
      status: "completed",
      error: null,
      incomplete_details: null,
      output,
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 15 },
    };
  }

  /** As OpenAI streams: the reasoning item announced with an early ciphertext, final only when done. */
  private events(response: Body): Item[] {
    const events: Item[] = [{ type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } }];
    response["output"].forEach((item: Item, index: number) => {
      const added = item.type === "reasoning" ? { ...item, encrypted_content: cipher(), summary: [] } : item.type === "function_call" ? { ...item, arguments: "" } : { ...item, content: [] };
      events.push({ type: "response.output_item.added", output_index: index, item: added });
      if (item.type === "reasoning") events.push({ type: "response.reasoning_summary_text.delta", output_index: index, summary_index: 0, item_id: item["id"], delta: item["summary"][0].text });
      if (item.type === "function_call") events.push({ type: "response.function_call_arguments.delta", output_index: index, item_id: item["id"], delta: item["arguments"] });
      if (item.type === "message") events.push({ type: "response.output_text.delta", output_index: index, content_index: 0, item_id: item["id"], delta: item["content"][0].text });
      events.push({ type: "response.output_item.done", output_index: index, item });
    });
    events.push({ type: "response.completed", response });
    return events;
  }
}


function sseFrame(event: unknown): string {
  return `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function sendEvents(res: ServerResponse, events: unknown[]): void {
  sendSse(res, events.map(sseFrame).join(""));
}
