/** Self time of a V8 CPU profile by function and by package (or source folder), idle left out. */
import type { Profiler } from "node:inspector";

function where(url: string, root: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:")) return url.replace(/^(node:(?:internal\/)?[\w-]+).*/, "$1");
  if (url.includes(root)) return url.slice(url.indexOf(root) + root.length + 1).replace(/\/[^/]+$/, "");
  return url || "(native)";
}

function table(counts: Map<string, number>, total: number, rows: number): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([name, count]) => `${((100 * count) / total).toFixed(1).padStart(6)}%  ${name}`)
    .join("\n");
}

export function summarize(profile: Profiler.Profile, root: string, rows = 25): string {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const id of profile.samples ?? []) {
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    total++;
    const place = where(frame.url, root);
    // Our own code by file (tsx-compiled sources report no useful line), packages by line.
    const own = frame.url.includes(root) && !frame.url.includes("node_modules");
    const at = own ? frame.url.slice(frame.url.indexOf(root) + root.length + 1) : `${place}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
    const name = `${frame.functionName || "(anonymous)"}  ${at}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + 1);
    byPlace.set(place, (byPlace.get(place) ?? 0) + 1);
  }
  return `busy samples: ${total}\n\nby function (self time)\n${table(byFunction, total, rows)}\n\nby package or folder (self time)\n${table(byPlace, total, rows)}`;
}
