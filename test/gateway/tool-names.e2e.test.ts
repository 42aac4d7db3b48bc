/**
 * Client tool names that a provider refuses (`fs.read`, `github/search`: fine for Gemini, not
 * for OpenAI or Anthropic), end to end with the real `openai` client: the gateway takes them,
 * the provider sees names it accepts, and the client gets its own names back. OpenAI is its
 * strict fake (which refuses such names with OpenAI's text); Anthropic a scripted upstream.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

let gw: RunningGateway | undefined;
let fake: StrictFake | undefined;
let scripted: ScriptedUpstream | undefined;
afterEach(async () => {
  await gw?.close();
  await fake?.close();
  await scripted?.close();
  gw = fake = scripted = undefined;
});

const tool = (name: string): OpenAI.ChatCompletionTool => ({ type: "function", function: { name, parameters: { type: "object", properties: { q: { type: "string" } } } } });
const tools = [tool("fs.read"), tool("github/search")];
const client = (running: RunningGateway) => new OpenAI({ baseURL: `${running.url}/v1`, apiKey: "unused", maxRetries: 0 });
type Call = OpenAI.ChatCompletionMessageFunctionToolCall;

describe("client tool names a provider refuses", () => {
  it.each([false, true])("OpenAI: renamed for it, the calls come back under the client's names, and the follow-up is accepted (stream: %s)", async (stream) => {
    fake = await startStrictFake(FAMILIES.openai!());
    gw = await startGateway({ mcpServers: {}, providers: { p: { type: "openai", baseURL: fake.url, apiKey: "k" } }, gateway: { retries: { attempts: 1 } } });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Read and search." }];
    const params = { model: "p/gpt-4o", messages, tools };
    const first = stream ? await client(gw).chat.completions.stream(params).finalChatCompletion() : await client(gw).chat.completions.create(params);
    const calls = first.choices[0]!.message.tool_calls as Call[];
    expect(calls.map((c) => c.function.name)).toEqual(["fs.read", "github/search"]);
    expect(fake.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["fs_read", "github_search"]);
    const followUp: OpenAI.ChatCompletionMessageParam[] = [
      ...messages,
      { role: "assistant", content: null, tool_calls: calls },
      ...calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: "ok" })),
    ];
    const second = await client(gw).chat.completions.create({ ...params, messages: followUp });
    expect(fake.rejections).toEqual([]);
    expect(second.choices[0]!.finish_reason).toBe("stop");
  });

  it("Anthropic: renamed for it, the call comes back under the client's name", async () => {
    scripted = await startScriptedUpstream("anthropic");
    scripted.script([{ calls: [{ id: "toolu_1", name: "fs_read", arguments: { q: "README" } }] }]);
    gw = await startGateway({ mcpServers: {}, providers: { claude: { type: "anthropic", baseURL: scripted.url, apiKey: "k" } } });
    const completion = await client(gw).chat.completions.create({ model: "claude/claude-haiku-4-5", messages: [{ role: "user", content: "Read it." }], tools });
    expect((completion.choices[0]!.message.tool_calls as Call[]).map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([["fs.read", { q: "README" }]]);
    expect(scripted.chatRequests()[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(["fs_read", "github_search"]);
  });
});
