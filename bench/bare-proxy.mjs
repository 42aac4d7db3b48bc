// The least a JSON proxy can do in Node, for scale: node:http in, undici out, the body parsed and
// re-serialized both ways. `npm run bench` measures it next to the gateway (plain node, no loader).
// A streamed answer is passed on event by event, each `data:` payload parsed and re-serialized
// (the model name put back, as for a whole answer): the least a proxy that reads the events does.
// One write per chunk the upstream delivered.
import { createServer } from "node:http";
import { Agent, request } from "undici";

const upstream = process.env.UPSTREAM;
const dispatcher = new Agent({ keepAliveTimeout: 30_000 });

/** Re-serializes each complete `data:` event of `text`; returns [what to write, the incomplete rest]. */
function events(text, model) {
  const end = text.lastIndexOf("\n\n");
  if (end < 0) return ["", text];
  let out = "";
  for (const event of text.slice(0, end).split("\n\n")) {
    const data = event.startsWith("data: ") ? event.slice(6) : undefined;
    if (data === undefined || data === "[DONE]") out += `${event}\n\n`;
    else out += `data: ${JSON.stringify({ ...JSON.parse(data), model })}\n\n`;
  }
  return [out, text.slice(end + 2)];
}

async function stream(answer, res, model) {
  res.writeHead(answer.statusCode, { "content-type": "text/event-stream" });
  answer.body.setEncoding("utf8");
  let rest = "";
  for await (const chunk of answer.body) {
    const [out, left] = events(rest + chunk, model);
    rest = left;
    if (out) res.write(out);
  }
  res.end(rest);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      const answer = await request(upstream, { method: "POST", body: JSON.stringify({ ...body, model: "m" }), headers: { "content-type": "application/json" }, dispatcher });
      if (body.stream) return await stream(answer, res, body.model);
      const json = await answer.body.json();
      res.writeHead(answer.statusCode, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...json, model: body.model }));
    } catch (error) {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write(`listening ${server.address().port}\n`));
