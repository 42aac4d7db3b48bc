/** Each door's pass-through request, as `npm run bench` sends it (the fake answers long streams on chat only). */
export interface DoorRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
}

export function doorRequest(door: string, stream: boolean, content: string): DoorRequest {
  const headers: Record<string, string> = { "x-mcp-servers": "none" };
  switch (door) {
    case "chat":
      return { path: "/v1/chat/completions", body: JSON.stringify({ model: "fake/m", stream, messages: [{ role: "user", content }] }), headers };
    case "messages":
      return { path: "/v1/messages", body: JSON.stringify({ model: "claude/m", stream, max_tokens: 100, messages: [{ role: "user", content }] }), headers: { ...headers, "anthropic-version": "2023-06-01" } };
    case "responses":
      return { path: "/v1/responses", body: JSON.stringify({ model: "responses/m", stream, input: content }), headers };
    default:
      throw new Error(`--door: chat, messages or responses, not "${door}"`);
  }
}

/** The fake upstream's providers, one per door's protocol. */
export function fakeProviders(fakePort: number): Record<string, Record<string, string>> {
  return {
    fake: { type: "openai", baseURL: `http://127.0.0.1:${fakePort}/v1` },
    claude: { type: "anthropic", baseURL: `http://127.0.0.1:${fakePort}`, apiKey: "bench" },
    responses: { type: "openai-responses", baseURL: `http://127.0.0.1:${fakePort}/v1`, apiKey: "bench" },
  };
}
