/**
 * The JSON Schema subset of OpenAI structured outputs (`strict: true`), from the "Supported
 * schemas" section of the OpenAI structured-outputs guide: per type only these keywords;
 * `allOf`, `not`, `if/then/else`, `dependent*`, `oneOf` ("'oneOf' is not permitted") and the
 * rest are refused. `minLength`/`maxLength` and `default` are refused by some models, so they
 * go to the description as well.
 */
export const STRICT_COMMON = ["type", "description", "title", "enum", "const", "anyOf"];

export const STRICT_BY_TYPE: Record<string, string[]> = {
  string: ["pattern", "format"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "minItems", "maxItems"],
  object: ["properties", "required", "additionalProperties"],
  boolean: [],
  null: [],
};

/** `format` values strict mode accepts ("'uri' is not a valid format" otherwise). */
export const STRICT_FORMATS = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/**
 * Size limits. OpenAI's current guide allows 5000 properties and 10 nesting levels; earlier
 * limits (100 properties, 5 levels: "6 levels of nesting exceeds limit of 5") are still
 * reported, so the defaults are the conservative ones. Exceeding them only costs `strict`.
 */
export interface StrictLimits {
  /** Object nesting levels, the root object counting as 1. */
  maxDepth: number;
  /** Properties over all objects of the schema. */
  maxProperties: number;
  /** Enum values over the whole schema. */
  maxEnumValues: number;
}

export const DEFAULT_STRICT_LIMITS: StrictLimits = { maxDepth: 5, maxProperties: 100, maxEnumValues: 500 };

/** Metadata dropped without a note. */
export const STRICT_META = new Set(["$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions"]);
