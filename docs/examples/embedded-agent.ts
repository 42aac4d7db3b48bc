/**
 * An agent embedded in a program: the gateway's loop with the providers and MCP servers of
 * mcp.config.json, plus a tool of the program's own. Run it after `npm install mcp-agent-gateway`
 * (with tsx, or compiled); the test suite type-checks it against the built package.
 */
import { createAgent, defineTool } from "mcp-agent-gateway";
import { z } from "zod";

const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Finds an order by its number and returns its status.",
  schema: z.object({ orderId: z.string().describe("The order number, e.g. A-1001") }),
  async handler({ orderId }, { reportProgress }) {
    reportProgress({ progress: 1, total: 1, message: `looking up ${orderId}` });
    return { orderId, status: "shipped", carrier: "DHL" };
  },
});

// Reads ./mcp.config.json (or MCP_GATEWAY_CONFIG); "default" is an alias of that config.
const agent = await createAgent({ model: process.env.AGENT_MODEL ?? "default", tools: [lookupOrder] });
try {
  // Events as they happen: text deltas, tool starts, MCP progress, tool ends.
  const run = agent.stream("Where is my order A-1001?");
  let step = await run.next();
  while (!step.done) {
    const event = step.value;
    if (event.type === "text_delta") process.stdout.write(event.delta);
    if (event.type === "tool_start") console.error(`\n[tool] ${event.call.name} ${JSON.stringify(event.call.arguments)}`);
    if (event.type === "tool_end") console.error(`[tool] ${event.call.name} ${event.isError ? "failed" : "done"} in ${event.durationMs} ms`);
    step = await run.next();
  }
  console.log(`\n(${step.value.stopReason}, ${step.value.turns} model calls)`);

  // A follow-up continues the conversation: the result carries it whole.
  const next = await agent.run([...step.value.messages, { role: "user", content: [{ type: "text", text: "And when will it arrive?" }] }]);
  console.log(next.text);
} finally {
  await agent.close();
}
