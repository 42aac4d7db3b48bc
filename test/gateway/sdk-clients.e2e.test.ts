/**
 * Two more real clients against the gateway, each with a client tool alongside MCP tools:
 * the Vercel AI SDK (openai-compatible provider, streamText) and the OpenAI Agents SDK (its
 * Chat Completions model, and its default Responses model through /v1/responses). Each runs its
 * own tool and loops back through the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { z } from "zod";
import { jsonSchema, stepCountIs, streamText, tool as aiTool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

let upstream: ScriptedUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  setTracingDisabled(true); // no trace export: the only network is loopback
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({ providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } } });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

/** Turn 1: an MCP call and a client call together; turn 2: the answer using both results. */
function mixedScript(clientTool: string) {
  upstream.script([
    {
      calls: [
        { id: "call_mcp", name: "everything__echo", arguments: { message: "from-mcp" } },
        { id: "call_client", name: clientTool, arguments: { city: "Oslo" } },
      ],
    },
    { text: "Oslo: sunny; echo: from-mcp." },
  ]);
}

function assertFollowUpHistory() {
  const requests = upstream.chatRequests();
  expect(requests).toHaveLength(2);
  const history = requests[1]!.body.messages as { role: string; tool_call_id?: string; content?: unknown; tool_calls?: { id: string }[] }[];
  const assistant = history.find((m) => m.role === "assistant")!;
  expect(assistant.tool_calls!.map((c) => c.id)).toEqual(["call_mcp", "call_client"]);
  const results = Object.fromEntries(history.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]));
  expect(results.call_mcp).toContain("Echo: from-mcp");
  expect(results.call_client).toContain("sunny");
}

describe("real client SDKs", () => {
  it("AI SDK streamText with a client tool next to the gateway's MCP tools", async () => {
    mixedScript("get_weather");
    const provider = createOpenAICompatible({ name: "gateway", baseURL: `${gw.url}/v1`, apiKey: "unused" });
    let executed = 0;
    const result = streamText({
      model: provider("fake/gpt-test"),
      prompt: "Weather in Oslo, and echo something",
      stopWhen: stepCountIs(3),
      tools: {
        get_weather: aiTool({
          description: "Weather for a city",
          inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
          execute: async ({ city }) => {
            executed++;
            return `${city} is sunny`;
          },
        }),
      },
    });
    expect(await result.text).toBe("Oslo: sunny; echo: from-mcp.");
    expect(executed).toBe(1);
    assertFollowUpHistory();
  });

  it("OpenAI Agents SDK (Chat Completions) with a client tool next to MCP tools", async () => {
    mixedScript("get_weather");
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const getWeather = agentTool({
      name: "get_weather",
      description: "Weather for a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `${city} is sunny`,
    });
    const agent = new Agent({ name: "assistant", instructions: "Answer briefly.", model: new OpenAIChatCompletionsModel(client, "fake/gpt-test"), tools: [getWeather] });
    const result = await run(agent, "Weather in Oslo, and echo something");
    expect(result.finalOutput).toBe("Oslo: sunny; echo: from-mcp.");
    assertFollowUpHistory();
  });

  it("OpenAI Agents SDK with its default Responses model, a client tool next to MCP tools", async () => {
    mixedScript("get_weather");
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    let executed = 0;
    const getWeather = agentTool({
      name: "get_weather",
      description: "Weather for a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        executed++;
        return `${city} is sunny`;
      },
    });
    const agent = new Agent({ name: "assistant", instructions: "Answer briefly.", model: new OpenAIResponsesModel(client, "fake/gpt-test"), tools: [getWeather] });
    const result = await run(agent, "Weather in Oslo, and echo something");
    expect(result.finalOutput).toBe("Oslo: sunny; echo: from-mcp.");
    expect(executed).toBe(1);
    assertFollowUpHistory();
    expect(upstream.chatRequests()[0]!.body.messages[0]).toEqual({ role: "system", content: "Answer briefly." });
  });
});
