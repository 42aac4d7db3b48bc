/**
 * Validates tool-call arguments against the tool's original inputSchema (ajv, as the MCP SDK
 * does). Validators are compiled once per tool per registry version, never per call.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { JsonSchema } from "../../core/index.ts";

export type ArgumentCheck = (args: unknown) => string | undefined;

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });

function describe(errors: ErrorObject[]): string {
  return errors
    .slice(0, 8)
    .map((e) => {
      const where = e.instancePath === "" ? "arguments" : `arguments${e.instancePath.replace(/\//g, ".")}`;
      const extra = e.keyword === "additionalProperties" ? ` ("${String((e.params as { additionalProperty?: unknown }).additionalProperty)}")` : "";
      return `${where} ${e.message ?? "is invalid"}${extra}`;
    })
    .join("; ");
}

/** Compiles a checker; a schema ajv cannot compile accepts everything (the server still validates). */
export function compileArgumentCheck(schema: JsonSchema): ArgumentCheck {
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch {
    return () => undefined;
  } finally {
    // Keep no reference in ajv's cache: registries are rebuilt when tools change, and two
    // servers may reuse one `$id`.
    ajv.removeSchema(schema);
  }
  return (args) => (validate(args) ? undefined : describe(validate.errors ?? []));
}
