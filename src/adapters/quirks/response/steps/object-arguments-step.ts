/** llama.cpp (some builds) and Ollama send tool-call arguments as a JSON object, not JSON text. */
import type { DeltaStep, LooseDelta, LooseToolCall } from "../wire.ts";

function stringify(call: LooseToolCall): LooseToolCall {
  const args = call.function?.arguments;
  if (typeof args !== "object" || args === null) return call;
  return { ...call, function: { ...call.function, arguments: JSON.stringify(args) } };
}

export class ObjectArgumentsStep implements DeltaStep {
  apply(delta: LooseDelta): LooseDelta {
    return delta.tool_calls ? { ...delta, tool_calls: delta.tool_calls.map(stringify) } : delta;
  }
}
