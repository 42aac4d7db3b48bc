/**
 * The schema corpus: hand-written tricky schemas and the real tool schemas of the reference
 * MCP servers (captured by test/fixtures/schemas/capture.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonSchema } from "../../../src/core/index.ts";

const dir = fileURLToPath(new URL("../../fixtures/schemas/", import.meta.url));

export interface CorpusEntry {
  /** `handwritten/<file>` or `<server>/<tool>`. */
  name: string;
  schema: JsonSchema;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

export function handwritten(): CorpusEntry[] {
  return readdirSync(join(dir, "handwritten"))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: `handwritten/${f.replace(/\.json$/, "")}`, schema: (readJson(join(dir, "handwritten", f)) as { schema: JsonSchema }).schema }));
}

export function captured(): CorpusEntry[] {
  return readdirSync(join(dir, "mcp"))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => {
      const { tools } = readJson(join(dir, "mcp", f)) as { tools: { name: string; inputSchema: JsonSchema }[] };
      return tools.map((t) => ({ name: `${f.replace(/\.json$/, "")}/${t.name}`, schema: t.inputSchema }));
    });
}

export function corpus(): CorpusEntry[] {
  return [...handwritten(), ...captured()];
}

/** One hand-written schema by file name. */
export function fixture(name: string): JsonSchema {
  const found = handwritten().find((e) => e.name === `handwritten/${name}`);
  if (!found) throw new Error(`no fixture ${name}`);
  return found.schema;
}
