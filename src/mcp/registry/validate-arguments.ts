/**
 * Validates tool-call arguments against the tool's original inputSchema (ajv, as the MCP SDK
 * does). Validators are compiled once per tool per registry version, never per call.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema } from "../../core/index.ts";

export type ArgumentCheck = (args: unknown) => string | undefined;

const options = { allErrors: true, strict: false, validateFormats: false };
const draft7 = new Ajv(options);
// MCP allows JSON Schema 2020-12 (the spec's default dialect since 2025-06); draft-07 ajv
// refuses its `$schema` and validation would silently be skipped.
const draft2020 = new Ajv2020(options);

function ajvFor(schema: JsonSchema): Ajv {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  return dialect.includes("2020-12") || dialect.includes("2019-09") ? draft2020 : draft7;
}

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
  const ajv = ajvFor(schema);
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
