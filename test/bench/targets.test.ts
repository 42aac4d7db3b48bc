import { describe, expect, it } from "vitest";
import { judge, shownRatio, workersCeiling } from "../../bench/targets.ts";

/** Results shaped as bench/run.ts writes them, with the gateway at `gatewayCpu` ms per request. */
function results(gatewayCpu: number): Record<string, unknown> {
  return {
    "throughput_non-streaming_c16": { gateway: { rps: 3000, cpuMsPerRequest: gatewayCpu } },
    bare_proxy_non_streaming_c16: { bareProxy: { rps: 5000, cpuMsPerRequest: 0.1 } },
    "messages_throughput_non-streaming_c16": { gateway: { cpuMsPerRequest: 0.2 } },
    "responses_throughput_non-streaming_c16": { gateway: { cpuMsPerRequest: 0.21 } },
    concurrent_conversations: { errors: 0, peakRssMb: 251 },
  };
}

describe("bench targets", () => {
  it("judges the measured ratios and leaves out what the run did not measure", () => {
    const verdicts = judge(results(0.2));
    expect(verdicts.map((v) => [v.target, v.met])).toEqual([
      ["pass-through CPU/request, 16 conn: gateway vs bare proxy", true],
      ["pass-through req/s, 16 conn: gateway vs bare proxy", true],
      ["front doors' CPU/request (chat, messages, responses): highest vs lowest", true],
      ["1,000 concurrent streamed conversations with an MCP call", false],
    ]);
    expect(verdicts[0]!.measured).toBe("2.00× (0.200 vs 0.100 ms)");
  });

  it("misses the CPU and door targets when the gateway costs more", () => {
    const verdicts = judge(results(0.25));
    expect(verdicts.filter((v) => !v.met).map((v) => v.target)).toEqual([
      "pass-through CPU/request, 16 conn: gateway vs bare proxy",
      "front doors' CPU/request (chat, messages, responses): highest vs lowest",
      "1,000 concurrent streamed conversations with an MCP call",
    ]);
  });

  it("never shows a missed ratio as its limit: more decimals when two would round onto it", () => {
    const paired = { ...results(0.3), paired_non_streaming_c16: { rounds: 3, gateway: { rps: 4093, cpuMsPerRequest: 0.246 }, bareProxy: { rps: 8246, cpuMsPerRequest: 0.115 } } };
    const [cpu, rps] = judge(paired);
    expect(rps).toMatchObject({ measured: "0.496× (4093 vs 8246)", met: false });
    expect(cpu).toMatchObject({ measured: "2.14× (0.246 vs 0.115 ms)", met: false });
    expect(shownRatio(2.004, 2)).toBe("2.004");
    expect(shownRatio(0.5, 0.5)).toBe("0.50");
    expect(shownRatio(1.2001, 1.2)).toBe("1.2001");
  });

  it("judges CPU and throughput from the paired measurement when the run made one", () => {
    const paired = { ...results(0.3), paired_non_streaming_c16: { rounds: 3, gateway: { rps: 2600, cpuMsPerRequest: 0.19 }, bareProxy: { rps: 5000, cpuMsPerRequest: 0.1 } } };
    const [cpu, rps] = judge(paired);
    expect(cpu).toMatchObject({ measured: "1.90× (0.190 vs 0.100 ms)", met: true });
    expect(rps).toMatchObject({ measured: "0.52× (2600 vs 5000)", met: true });
  });

  it("judges the doors from their measurement in turns when the run made one", () => {
    const inTurns = { ...results(0.3), paired_doors_c16: { rounds: 3, chat: { cpuMsPerRequest: 0.2 }, messages: { cpuMsPerRequest: 0.21 }, responses: { cpuMsPerRequest: 0.22 } } };
    const doors = judge(inTurns).find((v) => v.target.startsWith("front doors"));
    expect(doors).toMatchObject({ measured: "1.10× (0.200 / 0.210 / 0.220 ms)", met: true });
    // Without it, the doors' own runs (0.3 / 0.2 / 0.21): 1.50×.
    expect(judge(results(0.3)).find((v) => v.target.startsWith("front doors"))).toMatchObject({ met: false });
  });

  it("compares added latency with the bare proxy's plus 0.25 ms", () => {
    const base = { "bare_proxy_latency_non-streaming_c1": { addedP50Ms: 0.3 } };
    const [met] = judge({ ...base, "latency_non-streaming_c1": { addedP50Ms: 0.55 } });
    const [missed] = judge({ ...base, "latency_non-streaming_c1": { addedP50Ms: 0.56 } });
    expect([met!.met, missed!.met]).toEqual([true, false]);
  });

  it("judges added latency and first byte from their measurement in turns when the run made one", () => {
    const once = {
      "bare_proxy_latency_non-streaming_c1": { addedP50Ms: 0.2 },
      "latency_non-streaming_c1": { addedP50Ms: 0.5 },
      "bare_proxy_latency_streaming_c1": { addedTtfbP50Ms: 0.2 },
      "latency_streaming_c1": { addedTtfbP50Ms: 0.5 },
    };
    expect(judge(once).map((v) => v.met)).toEqual([false, false]);
    const inTurns = {
      ...once,
      paired_latency_c1: {
        rounds: 3,
        addedP50: { bareProxyMs: 0.25, gatewayMs: 0.45, gatewayOverBareMs: 0.2 },
        addedTtfbP50: { bareProxyMs: 0.26, gatewayMs: 0.52, gatewayOverBareMs: 0.26 },
      },
    };
    const [p50, ttfb] = judge(inTurns);
    expect(p50).toMatchObject({ measured: "+0.200 ms over the bare proxy (median of rounds in turns; gateway +0.450, bare proxy +0.250 ms)", limit: "≤ +0.250 ms", met: true });
    expect(ttfb).toMatchObject({ limit: "≤ +0.250 ms", met: false });
  });

  it("falls back to the single measurements when the run's measurement in turns lacks a figure", () => {
    const partial = {
      "bare_proxy_latency_non-streaming_c1": { addedP50Ms: 0.3 },
      "latency_non-streaming_c1": { addedP50Ms: 0.5 },
      paired_latency_c1: { rounds: 3, addedP50: { bareProxyMs: 0.25, gatewayMs: 0.9 } },
    };
    expect(judge(partial)[0]).toMatchObject({ measured: "+0.500 ms (bare proxy +0.300 ms)", met: true });
  });

  it("judges the 200-chunk stream from its measurement in turns when the run made one", () => {
    const once = { long_stream_latency_c1: { gateway: { p50: 2.9 } }, bare_proxy_long_stream_latency_c1: { bareProxy: { p50: 1.9 } } };
    expect(judge(once)).toEqual([{ target: "200-chunk stream time p50, 1 conn: gateway vs bare proxy", measured: "1.53× (2.90 vs 1.90 ms)", limit: "≤ 1.5×", met: false }]);
    // The median of each round's ratio, not the ratio of the medians (2.6 / 2.0 = 1.30×).
    const inTurns = { ...once, paired_long_stream_c1: { rounds: 3, directMs: 1.1, bareProxyMs: 2.0, gatewayMs: 2.6, gatewayOverBare: 1.42 } };
    expect(judge(inTurns)[0]).toMatchObject({ measured: "1.42× (median of rounds in turns; gateway 2.60, bare proxy 2.00 ms)", limit: "≤ 1.5×", met: true });
    expect(judge({ ...once, paired_long_stream_c1: { ...inTurns.paired_long_stream_c1, gatewayOverBare: 1.51 } })[0]).toMatchObject({ met: false });
    // Without its ratio, the single measurements decide.
    expect(judge({ ...once, paired_long_stream_c1: { rounds: 3, gatewayMs: 2.6, bareProxyMs: 2.0 } })[0]).toMatchObject({ measured: "1.53× (2.90 vs 1.90 ms)" });
  });

  it("shows beside the --workers verdict the most two workers could give on the run's machine, when measured", () => {
    const workers = { workers_pass_through_non_streaming_c16: { oneProcessMemory: { rps: 3000 }, twoWorkersRedis: { rps: 3750 } } };
    expect(judge(workers)).toEqual([{ target: "--workers 2 (Redis) vs one process, pass-through req/s, 16 conn", measured: "1.25× (3750 vs 3000)", limit: "≥ 1.3×", met: false }]);
    const [verdict] = judge({ ...workers, workers_ceiling_c16: { ratio: 1.37, gatewayMs: 0.25, loadGeneratorMs: 0.08, upstreamMs: 0.035 } });
    expect(verdict).toMatchObject({ measured: "1.25× (3750 vs 3000); at most 1.37× on this machine", met: false });
  });

  it("bounds --workers 2 by the cores it shares with the load generator and the upstream, and by a core per worker", () => {
    // One process bound by its core (1/g = 4 requests per ms): on two cores, 2g/(g+l+u).
    expect(workersCeiling(4000, 0.25, 0.05, 0.05, 2)).toBeCloseTo((2 * 0.25) / 0.35, 10);
    // A cheaper gateway lowers it: the load and the upstream take a larger share of the cores.
    expect(workersCeiling(1000 / 0.15, 0.15, 0.05, 0.05, 2)).toBeLessThan(workersCeiling(4000, 0.25, 0.05, 0.05, 2));
    // With cores to spare, each worker's own core is the bound: 2/g against 1/g.
    expect(workersCeiling(4000, 0.25, 0.05, 0.05, 8)).toBeCloseTo(2, 10);
    // A one process that did not fill its core leaves more room.
    expect(workersCeiling(2000, 0.25, 0.05, 0.05, 2)).toBeCloseTo(2 / 0.35 / 2, 10);
  });
});
