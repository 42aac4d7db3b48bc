import { request, Agent } from "undici";
const [url, n, body] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const agent = new Agent();
for (let i = 0; i < n; i++) { const r = await request(url, { method: "POST", body, headers: { "content-type": "application/json", "x-mcp-servers": "none" }, dispatcher: agent }); await r.body.text(); }
