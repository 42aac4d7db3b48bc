import type { ResponseFormat } from "../../core/index.ts";

/**
 * Anthropic's Messages API has no `response_format`. Recent models take
 * `output_config.format: {type:"json_schema", schema}` (SDK 1.12 types it), but older models and
 * Anthropic-compatible endpoints reject it, so it is not sent by default: the wanted format becomes
 * a system instruction, which every model follows well. A client that knows its model supports
 * structured outputs can still send `output_config` through `extra`.
 */
export function responseFormatInstruction(format: ResponseFormat | undefined): string | undefined {
  switch (format?.type) {
    case undefined:
    case "text":
      return undefined;
    case "json_object":
      return "Respond with a single JSON object and nothing else: no prose, no code fences.";
    case "json_schema": {
      const about = format.description ? ` (${format.description})` : "";
      return (
        `Respond with a single JSON value that conforms to the JSON schema "${format.name}"${about}, ` +
        `and nothing else: no prose, no code fences.\nSchema: ${JSON.stringify(format.schema)}`
      );
    }
  }
}
