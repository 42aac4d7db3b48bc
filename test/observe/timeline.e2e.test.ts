/**
 * The web view's timeline of a request puts each step where it happened on the time axis: the MCP
 * call after the model turn that asked for it and before the turn that read its result — also for
 * a stream whose client reads slowly (the loop's events then reach the observation late).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let model: ScriptedUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  model = await startScriptedUpstream("openai");
  gw = await startGateway({ providers: { p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: "k" } } });
});

afterAll(async () => {
  await gw?.close();
  await model?.close();
});

interface Entry {
  kind: string;
  at: number;
  ms?: number;
  turn?: number;
}

async function timelineOf(id: string): Promise<Entry[]> {
  let record: { state: string; timeline: Entry[] } | undefined;
  await vi.waitFor(async () => {
    record = (await (await fetch(`${gw.url}/ui/api/requests/${id}`)).json()) as { state: string; timeline: Entry[] };
    expect(record.state).toBe("done");
  }, { timeout: 5_000, interval: 10 });
  return record!.timeline;
}

describe("the timeline", () => {
  for (const stream of [false, true]) {
    it(`places the MCP call between the turns around it (${stream ? "streamed, read slowly" : "whole"})`, async () => {
      // The tool takes a while (server-everything's long-running operation, 2 steps of 0.1 s).
      model.script([{ calls: [{ id: "call_t", name: "everything__trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } }] }, { text: "Done." }]);
      const id = `timeline-${stream}`;
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": id },
        body: JSON.stringify({ model: "p/m", stream, messages: [{ role: "user", content: "take your time" }] }),
      });
      expect(response.status).toBe(200);
      if (stream) {
        // The client reads nothing until the tool has run (counted by the MCP client), then everything.
        await vi.waitFor(async () => {
          const metrics = await (await fetch(`${gw.url}/metrics`)).text();
          expect(metrics).toMatch(/mcp_client_operation_duration_seconds_count\{[^}]*gen_ai_tool_name="trigger-long-running-operation"[^}]*\} 1/);
        }, { timeout: 10_000, interval: 10 });
      }
      await response.text();
      const timeline = await timelineOf(id);
      expect(timeline.map((e) => e.kind)).toEqual(["model", "tool", "model"]);
      const [first, tool, second] = timeline as [Entry, Entry, Entry];
      expect(tool.ms).toBeGreaterThanOrEqual(150);
      // Times are rounded to the ms: 1 ms of slack each way.
      expect(tool.at).toBeGreaterThanOrEqual(first.at + first.ms! - 1);
      expect(tool.at + tool.ms!).toBeLessThanOrEqual(second.at + 1);
    });
  }
});
