/**
 * Several deployments behind one alias, end to end: a real gateway, scripted upstreams speaking
 * the OpenAI protocol, requests through /v1/chat/completions. Weights 3:1 share 400 requests
 * exactly 300:100 (the smooth weighted round-robin is deterministic); a deployment that starts
 * answering 503 is cooled down and every request succeeds on the other, which the response names
 * (`mcp_gateway.provider`), streamed or not. Nothing waits on wall-clock time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJson } from "../helpers/fake-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let east: ScriptedUpstream;
let west: ScriptedUpstream;
let flaky: ScriptedUpstream;
let steady: ScriptedUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  [east, west, flaky, steady] = await Promise.all([
    startScriptedUpstream("openai", replies({ text: "from east" })),
    startScriptedUpstream("openai", replies({ text: "from west" })),
    startScriptedUpstream("openai", replies({ text: "from flaky" })),
    startScriptedUpstream("openai", replies({ text: "from steady" })),
  ]);
  const provider = (upstream: ScriptedUpstream) => ({ type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" });
  gw = await startGateway({
    mcpServers: {},
    providers: { east: provider(east), west: provider(west), flaky: provider(flaky), steady: provider(steady) },
    models: {
      gpt: { deployments: [{ model: "east/gpt-4.1", weight: 3 }, { model: "west/gpt-4.1", weight: 1 }] },
      // The flaky one comes first: the round-robin's first pick on a tie.
      sturdy: { deployments: [{ model: "flaky/m" }, { model: "steady/m" }], cooldownMs: 600_000 },
    },
    gateway: { retries: { attempts: 2, initialDelayMs: 0, maxDelayMs: 1, budgetMs: 1000 } },
  });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([east, west, flaky, steady].map((u) => u?.close()));
});

interface Completion {
  model: string;
  choices: { message: { content: string } }[];
  mcp_gateway: { provider: string; model: string };
}

async function ask(model: string, stream = false): Promise<{ status: number; body: Completion | undefined; text: string }> {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], ...(stream ? { stream: true } : {}) }),
  });
  const text = await response.text();
  return { status: response.status, body: stream || response.status !== 200 ? undefined : (JSON.parse(text) as Completion), text };
}

/** Runs `count` requests, `concurrency` at a time. */
async function many<T>(count: number, concurrency: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await run(i);
      }
    }),
  );
  return results;
}

describe("deployments behind one alias", () => {
  it("weights 3:1 share 400 requests exactly 300:100, and the response names the deployment that answered", async () => {
    const answers = await many(400, 8, () => ask("gpt"));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(east.chatRequests()).toHaveLength(300);
    expect(west.chatRequests()).toHaveLength(100);
    const byProvider = { east: 0, west: 0 } as Record<string, number>;
    for (const { body } of answers) {
      byProvider[body!.mcp_gateway.provider]!++;
      expect(body!.choices[0]!.message.content).toBe(`from ${body!.mcp_gateway.provider}`);
      expect(body!.model).toBe("gpt-4.1");
    }
    expect(byProvider).toEqual({ east: 300, west: 100 });
    expect(new Set(east.chatRequests().map((r) => r.body.model))).toEqual(new Set(["gpt-4.1"]));
  });

  it("a deployment that starts answering 503 is cooled down: every request succeeds on the other", async () => {
    flaky.handle((req, res) => sendJson(res, 503, { error: { message: `flaky is overloaded (${req.path})`, type: "server_error" } }));
    const first = await ask("sturdy");
    // Its retries spent on the flaky deployment, the request went on to the other one.
    expect(first.status).toBe(200);
    expect(first.body!.mcp_gateway.provider).toBe("steady");
    expect(flaky.requests).toHaveLength(2);
    const rest = await many(40, 4, (i) => ask("sturdy", i % 2 === 1));
    expect(rest.every((a) => a.status === 200)).toBe(true);
    expect(rest.filter((a) => a.body).every((a) => a.body!.mcp_gateway.provider === "steady")).toBe(true);
    expect(rest.filter((a) => !a.body).every((a) => a.text.includes('"provider":"steady"') && a.text.endsWith("data: [DONE]\n\n"))).toBe(true);
    // Not one more request reached the cooled-down deployment.
    expect(flaky.requests).toHaveLength(2);
    expect(steady.chatRequests()).toHaveLength(41);
  });
});
