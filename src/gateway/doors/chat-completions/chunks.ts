/**
 * Loop events as `chat.completion.chunk` payloads. One instance per response: it knows the
 * response id, model and creation time every chunk repeats.
 */
import type { LoopEvent, PlanReport } from "../../../loop/index.ts";
import type { Usage } from "../../../core/index.ts";
import { extend } from "../../../core/extend.ts";
import { ArgumentRelay, argumentText } from "../../shared/argument-relay.ts";
import type { FinishReason } from "./finish-reason.ts";
import type { GatewayInfo } from "../../shared/gateway-info.ts";
import type { ToolEventPayload } from "../../shared/tool-events.ts";
import { toOpenAIUsage } from "./usage.ts";

type Delta = {
  role?: "assistant";
  content?: string;
  reasoning_content?: string;
  tool_calls?: { index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } }[];
  /** The gateway's own tool calls, live (opt-in): clients that ignore unknown fields see an empty delta. */
  mcp_gateway?: { tool_event: ToolEventPayload } | { plan: PlanReport };
};

export class ChunkBuilder {
  /** Per client tool call (by output index): its argument text, relayed as in a non-streamed answer. */
  private readonly relays = new Map<number, ArgumentRelay>();

  constructor(
    private readonly id: string,
    /** The model that answers (known once its first call starts; the requested name until then). */
    public model: string,
    private readonly created: number,
  ) {}

  private chunk(delta: Delta, finishReason: FinishReason | null = null): object {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
  }

  /** The text chunk's JSON around its content, for the model it was made for (see textJson). */
  private textTemplate: { model: string; before: string; after: string } | undefined;

  /**
   * The JSON of a text delta's chunk, the same text as JSON.stringify(fromEvent(text_delta)),
   * made from a template: the fixed fields of the most frequent chunk are serialized once per
   * response, not once per token.
   */
  textJson(delta: string): string {
    let template = this.textTemplate;
    if (template?.model !== this.model) {
      // The content is the chunk's last free text (after id and model), so its marker is the last one.
      const marker = JSON.stringify("\u0000delta");
      const whole = JSON.stringify(this.chunk({ content: "\u0000delta" }));
      const at = whole.lastIndexOf(marker);
      template = this.textTemplate = { model: this.model, before: whole.slice(0, at), after: whole.slice(at + marker.length) };
    }
    return template.before + JSON.stringify(delta) + template.after;
  }

  /** The opening chunk, as OpenAI sends it: the role and empty content. */
  opening(): object {
    return this.chunk({ role: "assistant", content: "" });
  }

  /** The chunk for a loop event, or undefined when the client sees nothing of it. */
  fromEvent(event: LoopEvent): object | undefined {
    switch (event.type) {
      case "text_delta":
        return this.chunk({ content: event.delta });
      case "reasoning_delta":
        return this.chunk({ reasoning_content: event.delta });
      case "client_tool_call_start":
        this.relays.set(event.index, new ArgumentRelay());
        return this.chunk({
          tool_calls: [{ index: event.index, id: event.id, type: "function", function: { name: event.name, arguments: "" } }],
        });
      case "client_tool_call_delta":
        return this.argumentsChunk(event.index, (relay) => relay.push(event.delta));
      case "client_tool_call_end":
        return this.argumentsChunk(event.index, (relay) => relay.finish(argumentText(event.call)));
      case "plan":
        // Plan mode: the plan at each change, as a delta only the gateway's clients read.
        return this.chunk({ mcp_gateway: { plan: event.plan } });
      default:
        return undefined;
    }
  }

  private argumentsChunk(index: number, next: (relay: ArgumentRelay) => string): object | undefined {
    const relay = this.relays.get(index);
    const text = relay ? next(relay) : "";
    return text === "" ? undefined : this.chunk({ tool_calls: [{ index, function: { arguments: text } }] });
  }

  /** A chunk with no content: a tool of the gateway started, progressed or ended. */
  toolEvent(payload: ToolEventPayload): object {
    return this.chunk({ mcp_gateway: { tool_event: payload } });
  }

  /** The closing chunk; `info` rides along as the extra `mcp_gateway` field. */
  finish(reason: FinishReason, info?: GatewayInfo): object {
    const chunk = this.chunk({}, reason);
    return info ? extend(chunk, { mcp_gateway: info }) : chunk;
  }

  /** The usage chunk of `stream_options.include_usage`: no choices. */
  usage(usage: Usage): object {
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [], usage: toOpenAIUsage(usage) };
  }
}
