/**
 * Every process a stdio MCP server start left running. Servers are often started through a
 * wrapper (`npx`, `uvx`, `sh -c`) that runs the real server as its child, and the MCP SDK ends
 * only the process it spawned: a real server that ignores stdin closing and SIGTERM would
 * outlive the gateway, and one left by a failed start (the SDK ends the wrapper on an initialize
 * timeout, before anyone could look below it) would never be found by its parent again.
 *
 * So each start marks its child's environment with a token of its own, which the processes it
 * starts inherit, and the processes carrying it are found in /proc (Linux; elsewhere nothing is
 * found and nothing is done). A process keeps the token even after its parent is gone, and an
 * unrelated process reusing a pid never has it.
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

export const MARKER_VARIABLE = "MCP_GATEWAY_SERVER_START";

/** A process as seen once: its start time tells it apart from a later one with the same pid. */
export interface ProcessRef {
  pid: number;
  started: string;
}

export function newMarker(): string {
  return randomUUID();
}

interface Stat {
  state: string;
  started: string;
}

function statOf(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses).
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, started: fields[19]! };
  } catch {
    return undefined;
  }
}

/** The running processes whose environment carries `marker` (readable ones: the gateway's user's). */
export function markedProcesses(marker: string): ProcessRef[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const needle = Buffer.from(`${MARKER_VARIABLE}=${marker}`);
  const found: ProcessRef[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue; // gone, or another user's
    }
    if (!environ.includes(needle)) continue;
    const stat = statOf(Number(entry));
    if (stat && stat.state !== "Z") found.push({ pid: Number(entry), started: stat.started });
  }
  return found;
}

/** Whether the very process seen (not a later one that reuses its pid) still runs (a zombie is dead). */
function running(ref: ProcessRef): boolean {
  const stat = statOf(ref.pid);
  return stat !== undefined && stat.started === ref.started && stat.state !== "Z";
}

function signal(ref: ProcessRef, name: NodeJS.Signals): void {
  try {
    if (running(ref)) process.kill(ref.pid, name);
  } catch {
    // gone in between
  }
}

const POLL_MS = 25;
/** How long to wait for SIGKILLed processes to be gone. */
const KILL_WAIT_MS = 1_000;

/** Polls until none of `refs` runs or `ms` have passed; returns those still running. */
async function waitGone(refs: ProcessRef[], ms: number): Promise<ProcessRef[]> {
  let left = refs.filter(running);
  for (let waited = 0; waited < ms && left.length > 0; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    left = left.filter(running);
  }
  return left;
}

/**
 * Ends the processes still running: SIGTERM, then SIGKILL for those still there after
 * `graceMs`. Resolves once they are gone (a killed process still has to be scheduled to die,
 * which on a busy machine takes a moment), or after a bounded wait.
 */
export async function endProcesses(refs: readonly ProcessRef[], graceMs = 2_000): Promise<void> {
  const alive = refs.filter(running);
  if (alive.length === 0) return;
  for (const ref of alive) signal(ref, "SIGTERM");
  const stubborn = await waitGone(alive, graceMs);
  for (const ref of stubborn) signal(ref, "SIGKILL");
  await waitGone(stubborn, KILL_WAIT_MS);
}
