// The least a JSON proxy can do in Node, for scale: node:http in, undici out, the body parsed and
// re-serialized both ways. `npm run bench` measures it next to the gateway (plain node, no loader).
import { createServer } from "node:http";
import { Agent, request } from "undici";

const upstream = process.env.UPSTREAM;
const dispatcher = new Agent({ keepAliveTimeout: 30_000 });

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      const answer = await request(upstream, { method: "POST", body: JSON.stringify({ ...body, model: "m" }), headers: { "content-type": "application/json" }, dispatcher });
      const json = await answer.body.json();
      res.writeHead(answer.statusCode, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...json, model: body.model }));
    } catch (error) {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write(`listening ${server.address().port}\n`));
