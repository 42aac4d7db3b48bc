/**
 * What Gemini enforces on function declaration `parameters` (OpenAPI 3.0 subset), written
 * independently of the normalizer so the tests can catch it out. Sources: the Gemini API
 * `Schema` reference (fields), and the errors quoted in docs/provider-quirks.md:
 * unknown fields ("Cannot find field"), type lists ("Proto field is not repeating"), enums
 * ("only allowed for STRING type"), formats ("only 'enum' and 'date-time' are supported for
 * STRING type"), `$ref`, empty properties ("should be non-empty for OBJECT type"),
 * `properties` on other types ("only allowed for OBJECT type"), missing `type`.
 */
const FIELDS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
  "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
  "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);
const FORMATS: Record<string, string[]> = { string: ["enum", "date-time"], number: ["float", "double"], integer: ["int32", "int64"] };
const OBJECT_ONLY = ["properties", "required", "minProperties", "maxProperties", "propertyOrdering"];
const ARRAY_ONLY = ["items", "minItems", "maxItems"];

type Node = { [key: string]: unknown };

function isNode(v: unknown): v is Node {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkType(node: Node, path: string, errors: string[]): string | undefined {
  const type = node["type"];
  if (Array.isArray(type)) errors.push(`${path}.type: Proto field is not repeating, cannot start list`);
  else if (type === undefined) {
    if (!Array.isArray(node["anyOf"])) errors.push(`${path}.type: must be specified when not using one_of, any_of or all_of fields`);
  } else if (typeof type !== "string" || !TYPES.has(type.toLowerCase())) errors.push(`${path}.type: invalid type ${JSON.stringify(type)}`);
  else return type.toLowerCase();
  return undefined;
}

function checkKeywords(node: Node, type: string | undefined, path: string, errors: string[]): void {
  for (const key of Object.keys(node)) if (!FIELDS.has(key)) errors.push(`${path}: Unknown name "${key}": Cannot find field`);
  if (node["nullable"] !== undefined && typeof node["nullable"] !== "boolean") errors.push(`${path}.nullable: must be a boolean`);
  if (node["description"] !== undefined && typeof node["description"] !== "string") errors.push(`${path}.description: must be a string`);
  if (type === undefined) return;
  for (const k of OBJECT_ONLY) if (k in node && type !== "object") errors.push(`${path}.${k}: only allowed for OBJECT type`);
  for (const k of ARRAY_ONLY) if (k in node && type !== "array") errors.push(`${path}.${k}: only allowed for ARRAY type`);
}

function checkEnumAndFormat(node: Node, type: string | undefined, path: string, errors: string[]): void {
  const values = node["enum"];
  if (values !== undefined) {
    if (type !== "string") errors.push(`${path}.enum: only allowed for STRING type`);
    if (!Array.isArray(values) || values.length === 0) errors.push(`${path}.enum: must be a non-empty list`);
    else values.forEach((v, i) => typeof v !== "string" && errors.push(`${path}.enum[${i}]: Invalid value (TYPE_STRING), ${JSON.stringify(v)}`));
  }
  const format = node["format"];
  if (format !== undefined && !(typeof format === "string" && type !== undefined && (FORMATS[type] ?? []).includes(format))) {
    errors.push(`${path}.format: ${JSON.stringify(format)} not supported for ${type ?? "untyped"} (only 'enum' and 'date-time' are supported for STRING type)`);
  }
}

function checkObject(node: Node, path: string, errors: string[]): void {
  const props = node["properties"];
  if (props !== undefined && !isNode(props)) errors.push(`${path}.properties: must be a map`);
  const names = isNode(props) ? Object.keys(props) : [];
  if (isNode(props) && names.length === 0) errors.push(`${path}.properties: should be non-empty for OBJECT type`);
  if (isNode(props)) for (const [k, v] of Object.entries(props)) check(v, `${path}.properties[${k}]`, errors);
  const required = node["required"];
  if (required !== undefined) {
    if (!Array.isArray(required)) errors.push(`${path}.required: must be a list`);
    else for (const r of required) if (typeof r !== "string" || !names.includes(r)) errors.push(`${path}.required: property ${JSON.stringify(r)} is not defined`);
  }
}

function check(value: unknown, path: string, errors: string[]): void {
  if (!isNode(value)) {
    errors.push(`${path}: schema must be an object`);
    return;
  }
  if ("$ref" in value) errors.push(`${path}: $ref is not supported`);
  const type = checkType(value, path, errors);
  checkKeywords(value, type, path, errors);
  checkEnumAndFormat(value, type, path, errors);
  if (type === "object") checkObject(value, path, errors);
  if (type === "array") {
    if (!("items" in value)) errors.push(`${path}.items: missing field`);
    else check(value["items"], `${path}.items`, errors);
  }
  const anyOf = value["anyOf"];
  if (anyOf !== undefined) {
    if (!Array.isArray(anyOf) || anyOf.length === 0) errors.push(`${path}.anyOf: must be a non-empty list`);
    else anyOf.forEach((b, i) => check(b, `${path}.anyOf[${i}]`, errors));
  }
}

/** Every rule Gemini would reject `parameters` for; empty when it would accept it. */
export function geminiSchemaErrors(parameters: unknown): string[] {
  const errors: string[] = [];
  check(parameters, "parameters", errors);
  if (isNode(parameters) && parameters["type"] !== "object") errors.push("parameters.type: must be OBJECT");
  return errors;
}
