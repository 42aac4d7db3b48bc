/**
 * A tiny stdio MCP server (plain node, no SDK, starts in a few ms) whose start the test controls:
 *
 * - SLOW_MODE=hang: never answers initialize (nor anything else).
 * - SLOW_MODE=hang-tools: answers initialize, never answers tools/list.
 * - SLOW_MODE=gate: answers nothing until the file SLOW_GATE exists, then everything queued.
 * - otherwise: answers at once.
 *
 * SLOW_LOG: a file to which it appends "spawned <pid>" when it starts (to count starts).
 * Tools: `ping` (answers "pong").
 */
import { appendFileSync, existsSync } from "node:fs";
import { createInterface } from "node:readline";

const mode = process.env.SLOW_MODE ?? "";
const gate = process.env.SLOW_GATE;
if (process.env.SLOW_LOG) appendFileSync(process.env.SLOW_LOG, `spawned ${process.pid}\n`);

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

function answer(message) {
  if (message.id === undefined) return; // notifications
  switch (message.method) {
    case "initialize":
      if (mode === "hang") return;
      return send({
        id: message.id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "slow-server", version: "1.0.0" },
        },
      });
    case "tools/list":
      if (mode === "hang-tools") return;
      return send({ id: message.id, result: { tools: [{ name: "ping", description: "Answers pong", inputSchema: { type: "object", properties: {} } }] } });
    case "tools/call":
      return send({ id: message.id, result: { content: [{ type: "text", text: "pong" }] } });
    case "ping":
      return send({ id: message.id, result: {} });
    default:
      return send({ id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
  }
}

const queued = [];
let open = mode !== "gate" || (gate !== undefined && existsSync(gate));
if (!open) {
  const poll = setInterval(() => {
    if (!existsSync(gate)) return;
    clearInterval(poll);
    open = true;
    for (const message of queued.splice(0)) answer(message);
  }, 10);
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  if (open) answer(message);
  else queued.push(message);
});
// In "hang" mode it keeps running after stdin ends, as a stuck server would (SIGTERM ends it).
if (mode === "hang") setInterval(() => undefined, 1 << 30);
else lines.on("close", () => process.exit(0));
