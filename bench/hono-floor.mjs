// The bare proxy (bench/bare-proxy.mjs, non-streamed) on Hono and @hono/node-server, with
// MIDDLEWARES no-op middlewares on /v1/*: what the framework alone costs per request, for scale.
// Not part of `npm run bench`; measured by hand (docs/performance.md):
//   PORT=… UPSTREAM=http://127.0.0.1:<fake>/v1/chat/completions MIDDLEWARES=7 node bench/hono-floor.mjs
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { Agent, request } from "undici";

const upstream = process.env.UPSTREAM;
const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
const app = new Hono();
for (let i = 0; i < Number(process.env.MIDDLEWARES ?? 0); i++) app.use("/v1/*", async (_c, next) => await next());
app.post("/v1/chat/completions", async (c) => {
  const body = await c.req.json();
  const answer = await request(upstream, { method: "POST", body: JSON.stringify({ ...body, model: "m" }), headers: { "content-type": "application/json" }, dispatcher });
  const json = await answer.body.json();
  return c.json({ ...json, model: body.model });
});
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" }, (info) => process.stdout.write(`listening ${info.port}\n`));
