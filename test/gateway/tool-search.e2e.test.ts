/**
 * The tool context budget end to end: a registry of 300 MCP tools (a real MCP server), an alias
 * with `toolSearch` — the first request carries the search tool and no other, a tool the search
 * finds is offered on the next turn and called, and the prompt is a small part of what every
 * tool's schema would cost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { faultServerEntry } from "../helpers/mcp-servers.ts";
import { promptTokens } from "../helpers/context-limit.ts";

let upstream: ScriptedUpstream;
let gw: RunningGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({
    // The fault server's own 10 tools and 291 fillers: 300.
    mcpServers: { fault: faultServerEntry({ fillers: 291 }) },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } },
    models: {
      searching: { model: "fake/gpt-test", toolSearch: { whenOverTokens: 2_000 } },
      everything: { model: "fake/gpt-test" },
    },
    gateway: { retries: { attempts: 1 } },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "x", maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

type Body = { tools?: { function: { name: string } }[]; messages: { role: string; content?: unknown }[] };
const names = (i: number) => ((upstream.chatRequests()[i]!.body as Body).tools ?? []).map((t) => t.function.name);

describe("toolSearch over 300 tools", () => {
  it("offers find_tools alone, then the tool it found, which the model calls; the prompt falls accordingly", async () => {
    upstream.script([{ text: "hello" }]);
    await client.chat.completions.create({ model: "everything", messages: [{ role: "user", content: "hi" }] });
    expect(names(0).length).toBeGreaterThanOrEqual(300);
    const full = promptTokens("openai", upstream.chatRequests()[0]!.body);

    upstream.script([
      { calls: [{ id: "s1", name: "find_tools", arguments: { query: "echo text back" } }] },
      { calls: [{ id: "e1", name: "fault__echo", arguments: { text: "found you" } }] },
      { text: "The echo said: found you." },
    ]);
    const completion = await client.chat.completions.create({ model: "searching", messages: [{ role: "user", content: "echo 'found you'" }] });
    expect(completion.choices[0]!.message.content).toBe("The echo said: found you.");
    expect(names(0)).toEqual(["find_tools"]);
    expect(names(1)).toEqual(["find_tools", "fault__echo"]);
    // The search result names the tool and its parameters; the echo ran for real.
    const bodies = upstream.chatRequests().map((r) => r.body as Body);
    expect(String(bodies[1]!.messages.at(-1)!.content)).toMatch(/- fault__echo: Echoes text Parameters: text \(string, required\)/);
    expect(String(bodies[2]!.messages.at(-1)!.content)).toContain("found you");
    const searched = promptTokens("openai", bodies[0]!);
    expect(searched * 20).toBeLessThan(full);
    const report = (completion as unknown as { mcp_gateway: { tool_search: { tools: number; found: string[]; searches: number; tokens_saved: number } } }).mcp_gateway.tool_search;
    expect(report).toMatchObject({ tools: 300, searches: 1 });
    expect(report.found).toContain("fault__echo");
    // Three model calls, each without most of the schemas.
    expect(report.tokens_saved).toBeGreaterThan(2 * (full - searched) * 0.5);
  });

  it("the next request of the conversation offers the tools it already used", async () => {
    upstream.script([{ text: "ok" }]);
    await client.chat.completions.create({
      model: "searching",
      messages: [
        { role: "user", content: "echo" },
        { role: "assistant", content: null, tool_calls: [{ id: "e0", type: "function", function: { name: "fault__echo", arguments: '{"text":"x"}' } }] },
        { role: "tool", tool_call_id: "e0", content: "x" },
        { role: "user", content: "again" },
      ],
    });
    expect(names(0)).toEqual(["find_tools", "fault__echo"]);
  });
});
