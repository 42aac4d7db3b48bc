/**
 * Tool parameter schemas in Gemini's OpenAPI subset. MCP tools arrive already normalized (the
 * gateway asks the registry for the `gemini` target); client tools arrive as the client wrote
 * them. Normalizing is idempotent, so every tool goes through the same function.
 */
import { normalizeSchema } from "../../../mcp/schema/index.ts";
import type { RequestStep } from "./context.ts";

export const geminiToolSchemas: RequestStep = (body) => {
  if (!body.tools?.length) return body;
  const tools = body.tools.map((tool) => ({
    ...tool,
    function: { ...tool.function, parameters: normalizeSchema(tool.function.parameters, "gemini").schema },
  }));
  return { ...body, tools };
};
