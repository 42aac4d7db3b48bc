/**
 * The processes below a stdio MCP server. Servers are often started through a wrapper (`npx`,
 * `uvx`, `sh -c`) that runs the real server as its child, and the MCP SDK ends only the process
 * it spawned: a real server that ignores stdin closing and SIGTERM would outlive the gateway.
 * Read from /proc (Linux); elsewhere nothing is found and nothing is done.
 */
import { readdirSync, readFileSync } from "node:fs";

/** A process as seen once: its start time tells it apart from a later one with the same pid. */
export interface ProcessRef {
  pid: number;
  started: string;
}

function statOf(pid: number): { ppid: number; started: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses): state, ppid, …
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), started: fields[19]! };
  } catch {
    return undefined;
  }
}

/** Every process below `root` (children, grandchildren, …), as they are now. */
export function descendantsOf(root: number | null | undefined): ProcessRef[] {
  if (!root) return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, ProcessRef[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = statOf(pid);
    if (!stat) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid, started: stat.started });
    children.set(stat.ppid, siblings);
  }
  const found: ProcessRef[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next.map((ref) => ref.pid));
  }
  return found;
}

/** Whether the very process seen (not a later one that reuses its pid) is still running. */
function running(ref: ProcessRef): boolean {
  return statOf(ref.pid)?.started === ref.started;
}

function signal(ref: ProcessRef, name: NodeJS.Signals): void {
  try {
    if (running(ref)) process.kill(ref.pid, name);
  } catch {
    // gone in between
  }
}

const POLL_MS = 25;

/** Ends the processes still running: SIGTERM, then SIGKILL for those still there after `graceMs`. */
export async function endProcesses(refs: readonly ProcessRef[], graceMs = 2_000): Promise<void> {
  let left = refs.filter(running);
  if (left.length === 0) return;
  for (const ref of left) signal(ref, "SIGTERM");
  for (let waited = 0; waited < graceMs && left.length > 0; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    left = left.filter(running);
  }
  for (const ref of left) signal(ref, "SIGKILL");
}
