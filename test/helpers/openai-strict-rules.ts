/**
 * What OpenAI enforces on `parameters` of a `strict: true` function, written independently of
 * the normalizer so the tests can catch it out. Sources: the "Supported schemas" section of the
 * structured-outputs guide and the errors quoted in docs/provider-quirks.md ("'additionalProperties'
 * is required to be supplied and to be false", "'required' is required to be supplied and to be an
 * array including every key in properties", "'oneOf' is not permitted", "6 levels of nesting
 * exceeds limit of 5", "'uri' is not a valid format").
 */
const COMMON = new Set(["type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs"]);
const BY_TYPE: Record<string, string[]> = {
  string: ["pattern", "format"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "minItems", "maxItems"],
  object: ["properties", "required", "additionalProperties"],
  boolean: [],
  null: [],
};
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

export interface StrictRuleLimits {
  maxDepth: number;
  maxProperties: number;
  maxEnumValues: number;
}

type Node = { [key: string]: unknown };

function isNode(v: unknown): v is Node {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function types(node: Node, path: string, errors: string[]): string[] {
  const t = node["type"];
  const list = typeof t === "string" ? [t] : Array.isArray(t) ? t : [];
  if (list.length === 0 && !Array.isArray(node["anyOf"]) && !("$ref" in node)) errors.push(`In context=${path}, schema must have a 'type' key`);
  for (const x of list) if (typeof x !== "string" || !(x in BY_TYPE)) errors.push(`In context=${path}, invalid type ${JSON.stringify(x)}`);
  return list.filter((x): x is string => typeof x === "string");
}

function checkKeywords(node: Node, list: string[], path: string, errors: string[]): void {
  const allowed = new Set([...COMMON, ...list.flatMap((t) => BY_TYPE[t] ?? [])]);
  for (const key of Object.keys(node)) if (!allowed.has(key)) errors.push(`In context=${path}, '${key}' is not permitted`);
  const format = node["format"];
  if (format !== undefined && !(typeof format === "string" && FORMATS.has(format))) errors.push(`In context=${path}, '${String(format)}' is not a valid format`);
  const values = node["enum"];
  if (values !== undefined && (!Array.isArray(values) || values.length === 0)) errors.push(`In context=${path}, 'enum' must be a non-empty array`);
}

function checkObject(node: Node, path: string, errors: string[]): void {
  if (node["additionalProperties"] !== false) errors.push(`In context=${path}, 'additionalProperties' is required to be supplied and to be false`);
  const props = node["properties"];
  if (!isNode(props)) {
    errors.push(`In context=${path}, 'properties' is required`);
    return;
  }
  const required = Array.isArray(node["required"]) ? node["required"] : undefined;
  const missing = Object.keys(props).filter((k) => !required?.includes(k));
  if (required === undefined || missing.length > 0) {
    errors.push(`In context=${path}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing.join("', '")}'`);
  }
  for (const r of required ?? []) if (typeof r !== "string" || !(r in props)) errors.push(`In context=${path}, required key ${JSON.stringify(r)} is not a property`);
  for (const [k, v] of Object.entries(props)) check(v, `${path}.properties.${k}`, errors);
}

function check(value: unknown, path: string, errors: string[]): void {
  if (!isNode(value)) {
    errors.push(`In context=${path}, schema must be an object`);
    return;
  }
  const list = types(value, path, errors);
  checkKeywords(value, list, path, errors);
  if (list.includes("object")) checkObject(value, path, errors);
  if (list.includes("array")) {
    if (!("items" in value)) errors.push(`In context=${path}, 'items' is required`);
    else check(value["items"], `${path}.items`, errors);
  }
  const anyOf = value["anyOf"];
  if (anyOf !== undefined) {
    if (!Array.isArray(anyOf) || anyOf.length === 0) errors.push(`In context=${path}, 'anyOf' must be a non-empty array`);
    else anyOf.forEach((b, i) => check(b, `${path}.anyOf.${i}`, errors));
  }
  const defs = value["$defs"];
  if (isNode(defs)) for (const [k, v] of Object.entries(defs)) check(v, `${path}.$defs.${k}`, errors);
}

interface Tally {
  depth: number;
  properties: number;
  enumValues: number;
}

function tally(value: unknown, level: number, t: Tally): void {
  if (!isNode(value)) return;
  const t0 = value["type"];
  const isObject = t0 === "object" || (Array.isArray(t0) && t0.includes("object"));
  const here = level + (isObject ? 1 : 0);
  t.depth = Math.max(t.depth, here);
  const props = isNode(value["properties"]) ? value["properties"] : {};
  t.properties += Object.keys(props).length;
  if (Array.isArray(value["enum"])) t.enumValues += value["enum"].length;
  const children = [...Object.values(props), value["items"], ...(Array.isArray(value["anyOf"]) ? value["anyOf"] : [])];
  for (const c of children) tally(c, here, t);
}

/** Every rule strict mode would reject `parameters` for; pass `limits` to check sizes too. */
export function openaiStrictErrors(parameters: unknown, limits?: StrictRuleLimits): string[] {
  const errors: string[] = [];
  if (!isNode(parameters) || parameters["type"] !== "object") errors.push("In context=(), root must be a JSON Schema of 'type: \"object\"'");
  if (isNode(parameters) && "anyOf" in parameters) errors.push("In context=(), 'anyOf' is not permitted at the root");
  check(parameters, "()", errors);
  if (limits) {
    const t: Tally = { depth: 0, properties: 0, enumValues: 0 };
    tally(parameters, 0, t);
    if (t.depth > limits.maxDepth) errors.push(`${t.depth} levels of nesting exceeds limit of ${limits.maxDepth}`);
    if (t.properties > limits.maxProperties) errors.push(`${t.properties} object properties exceed limit of ${limits.maxProperties}`);
    if (t.enumValues > limits.maxEnumValues) errors.push(`${t.enumValues} enum values exceed limit of ${limits.maxEnumValues}`);
  }
  return errors;
}
