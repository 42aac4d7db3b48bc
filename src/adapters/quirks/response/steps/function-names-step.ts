/** Names renamed for Gemini in the request come back as the names the caller knows. */
import type { FunctionNameMap } from "../../function-names.ts";
import type { DeltaStep, LooseDelta, LooseToolCall } from "../wire.ts";

export class FunctionNamesStep implements DeltaStep {
  constructor(private readonly names: FunctionNameMap) {}

  apply(delta: LooseDelta): LooseDelta {
    return delta.tool_calls ? { ...delta, tool_calls: delta.tool_calls.map((call) => this.restore(call)) } : delta;
  }

  private restore(call: LooseToolCall): LooseToolCall {
    const name = call.function?.name;
    return name ? { ...call, function: { ...call.function, name: this.names.original(name) } } : call;
  }
}
