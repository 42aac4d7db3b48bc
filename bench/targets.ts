/**
 * The targets of issue 19, each a ratio (or a count) of figures measured in the same run, read
 * from the run's results. A target whose figures were not measured (BENCH_ONLY) is left out;
 * `npm run bench` exits non-zero when one that was measured is missed.
 */

/** The run's results: scenario name → what it measured (bench/run.ts writes them). */
export type Results = Record<string, unknown>;

export interface Verdict {
  target: string;
  measured: string;
  limit: string;
  met: boolean;
}

interface Target {
  target: string;
  /** The verdict, or undefined when the run did not measure what it needs. */
  judge(results: Results): Omit<Verdict, "target"> | undefined;
}

/** A number at a dotted path of the results, if measured. */
function at(results: Results, path: string): number | undefined {
  let value: unknown = results;
  for (const key of path.split(".")) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function all(results: Results, paths: string[]): number[] | undefined {
  const values = paths.map((path) => at(results, path));
  return values.every((v) => v !== undefined) ? (values as number[]) : undefined;
}

const f = (n: number, digits = 2) => n.toFixed(digits);

/**
 * A ratio as shown beside its limit: two decimals, more when two would read as the limit itself
 * (4093 against 8246 requests/s is 0.496×, a miss of the 0.5× target, not "0.50×").
 */
export function shownRatio(r: number, limit: number): string {
  let digits = 2;
  while (digits < 4 && r !== limit && Number(r.toFixed(digits)) === limit) digits++;
  return r.toFixed(digits);
}

/**
 * measured ≤ limit (or ≥ when `atLeast`), both shown with the figures they come from; from
 * `how.preferred` when the run measured it (the paired measurement), else from `paths`.
 */
function ratio(target: string, paths: [string, string], limit: number, how: { atLeast?: boolean; preferred?: [string, string]; detail: (a: number, b: number) => string }): Target {
  return {
    target,
    judge(results) {
      const values = (how.preferred && all(results, how.preferred)) ?? all(results, paths);
      if (!values) return undefined;
      const [a, b] = values as [number, number];
      const r = a / b;
      return { measured: `${shownRatio(r, limit)}× (${how.detail(a, b)})`, limit: `${how.atLeast ? "≥" : "≤"} ${limit}×`, met: how.atLeast ? r >= limit : r <= limit };
    },
  };
}

/**
 * The gateway's added time ≤ the bare proxy's added time + `slackMs`. From the measurement in
 * turns when the run made it (`paired`: the median over the rounds of the gateway's added time
 * less the bare proxy's in the same round), else from the single measurements at `paths`.
 */
function added(target: string, paths: [string, string], slackMs: number, paired?: string): Target {
  return {
    target,
    judge(results) {
      const inTurns = paired ? all(results, [`${paired}.gatewayMs`, `${paired}.bareProxyMs`, `${paired}.gatewayOverBareMs`]) : undefined;
      if (inTurns) {
        const [gateway, bare, over] = inTurns as [number, number, number];
        return { measured: `+${f(over, 3)} ms over the bare proxy (median of rounds in turns; gateway +${f(gateway, 3)}, bare proxy +${f(bare, 3)} ms)`, limit: `≤ +${f(slackMs, 3)} ms`, met: over <= slackMs };
      }
      const values = all(results, paths);
      if (!values) return undefined;
      const [gateway, bare] = values as [number, number];
      return { measured: `+${f(gateway, 3)} ms (bare proxy +${f(bare, 3)} ms)`, limit: `≤ +${f(bare + slackMs, 3)} ms`, met: gateway <= bare + slackMs };
    },
  };
}

/**
 * gateway ÷ bare proxy ≤ `limit`, judged from its measurement in turns when the run made it
 * (`paired`: the median over the rounds of each round's ratio, with the median times beside it),
 * else as `ratio` judges the one-off measurements at `paths`.
 */
function ratioInTurns(target: string, paths: [string, string], limit: number, paired: string, detail: (a: number, b: number) => string): Target {
  const single = ratio(target, paths, limit, { detail });
  return {
    target,
    judge(results) {
      const inTurns = all(results, [`${paired}.gatewayOverBare`, `${paired}.gatewayMs`, `${paired}.bareProxyMs`]);
      if (!inTurns) return single.judge(results);
      const [r, gateway, bare] = inTurns as [number, number, number];
      return { measured: `${shownRatio(r, limit)}× (median of rounds in turns; gateway ${f(gateway)}, bare proxy ${f(bare)} ms)`, limit: `≤ ${limit}×`, met: r <= limit };
    },
  };
}

const DOORS = ["throughput_non-streaming_c16", "messages_throughput_non-streaming_c16", "responses_throughput_non-streaming_c16"].map((key) => `${key}.gateway.cpuMsPerRequest`);
/** The same, measured in turns (bench/run.ts pairedDoors): preferred when the run has it. */
const PAIRED_DOORS = ["chat", "messages", "responses"].map((door) => `paired_doors_c16.${door}.cpuMsPerRequest`);

const TARGETS: Target[] = [
  ratio("pass-through CPU/request, 16 conn: gateway vs bare proxy", ["throughput_non-streaming_c16.gateway.cpuMsPerRequest", "bare_proxy_non_streaming_c16.bareProxy.cpuMsPerRequest"], 2, {
    preferred: ["paired_non_streaming_c16.gateway.cpuMsPerRequest", "paired_non_streaming_c16.bareProxy.cpuMsPerRequest"],
    detail: (a, b) => `${f(a, 3)} vs ${f(b, 3)} ms`,
  }),
  ratio("pass-through req/s, 16 conn: gateway vs bare proxy", ["throughput_non-streaming_c16.gateway.rps", "bare_proxy_non_streaming_c16.bareProxy.rps"], 0.5, {
    preferred: ["paired_non_streaming_c16.gateway.rps", "paired_non_streaming_c16.bareProxy.rps"],
    atLeast: true,
    detail: (a, b) => `${f(a, 0)} vs ${f(b, 0)}`,
  }),
  added("added p50 latency, 1 conn: gateway vs bare proxy + 0.25 ms", ["latency_non-streaming_c1.addedP50Ms", "bare_proxy_latency_non-streaming_c1.addedP50Ms"], 0.25, "paired_latency_c1.addedP50"),
  added("added stream time to first byte p50: gateway vs bare proxy + 0.25 ms", ["latency_streaming_c1.addedTtfbP50Ms", "bare_proxy_latency_streaming_c1.addedTtfbP50Ms"], 0.25, "paired_latency_c1.addedTtfbP50"),
  ratioInTurns(
    "200-chunk stream time p50, 1 conn: gateway vs bare proxy",
    ["long_stream_latency_c1.gateway.p50", "bare_proxy_long_stream_latency_c1.bareProxy.p50"],
    1.5,
    "paired_long_stream_c1",
    (a, b) => `${f(a)} vs ${f(b)} ms`,
  ),
  {
    target: "front doors' CPU/request (chat, messages, responses): highest vs lowest",
    judge(results) {
      const cpu = all(results, PAIRED_DOORS) ?? all(results, DOORS);
      if (!cpu) return undefined;
      const r = Math.max(...cpu) / Math.min(...cpu);
      return { measured: `${f(r)}× (${cpu.map((c) => f(c, 3)).join(" / ")} ms)`, limit: "≤ 1.15×", met: r <= 1.15 };
    },
  },
  ratio("MCP tools/call p50 via /mcp vs direct", ["mcp_tool_call.gateway.p50", "mcp_tool_call.direct.p50"], 1.2, { detail: (a, b) => `${f(a)} vs ${f(b)} ms` }),
  ratio("MCP tools/call p50 via /mcp vs direct, 2026-07-28 era", ["mcp_tool_call_2026.gateway.p50", "mcp_tool_call_2026.direct.p50"], 1.2, { detail: (a, b) => `${f(a)} vs ${f(b)} ms` }),
  {
    target: "1,000 concurrent streamed conversations with an MCP call",
    judge(results) {
      const values = all(results, ["concurrent_conversations.errors", "concurrent_conversations.peakRssMb"]);
      if (!values) return undefined;
      const [errors, rss] = values as [number, number];
      return { measured: `${errors} errors, peak RSS ${f(rss, 0)} MB`, limit: "0 errors, ≤ 250 MB", met: errors === 0 && rss <= 250 };
    },
  },
  withCeiling(
    ratio("--workers 2 (Redis) vs one process, pass-through req/s, 16 conn", ["workers_pass_through_non_streaming_c16.twoWorkersRedis.rps", "workers_pass_through_non_streaming_c16.oneProcessMemory.rps"], 1.3, {
      atLeast: true,
      detail: (a, b) => `${f(a, 0)} vs ${f(b, 0)}`,
    }),
  ),
];

/**
 * The most `--workers 2` can give over one process on the run's machine (bench/run.ts measures the figures). Each worker runs on at
 * most one core, and the machine's cores are shared with the load generator (this process:
 * autocannon) and the fake upstream, so whatever the gateway does, the pair serves at most
 * min(2/g, cores/(g + l + u)) requests per ms, where g, l and u are the CPU each request costs
 * them (the one process's g: the pair's own is no lower). Divided by what the one process served
 * (requests per ms), that is the highest ratio the run could show. On two cores, with the one
 * process bound by its core (1/g requests per ms), it is 2g/(g+l+u): a cheaper gateway lowers it,
 * since the load and the upstream then take a larger share of the cores.
 */
export function workersCeiling(oneProcessRps: number, g: number, l: number, u: number, cores: number): number {
  return Math.min(2 / g, cores / (g + l + u)) / (oneProcessRps / 1000);
}

/**
 * The --workers verdict with the most two workers could give on the machine of the run
 * (`workersCeiling`), when measured: with cores shared with the load generator and the upstream,
 * the ratio is bound by the CPU each of them costs per request, whatever the gateway does.
 */
function withCeiling(target: Target): Target {
  return {
    target: target.target,
    judge(results) {
      const verdict = target.judge(results);
      const ceiling = at(results, "workers_ceiling_c16.ratio");
      return verdict && ceiling !== undefined ? { ...verdict, measured: `${verdict.measured}; at most ${f(ceiling)}× on this machine` } : verdict;
    },
  };
}

export function judge(results: Results): Verdict[] {
  return TARGETS.flatMap(({ target, judge }) => {
    const verdict = judge(results);
    return verdict ? [{ target, ...verdict }] : [];
  });
}
