// Load for `npm run bench:profile`, in its own process so it stays out of the profile:
// node bench/load.mjs <url> <connections> <seconds> <json-body> [<header-json>]. Prints autocannon's summary as JSON.
import autocannon from "autocannon";

const [url, connections, seconds, body, headers = "{}"] = process.argv.slice(2);
const result = await autocannon({
  url,
  method: "POST",
  headers: { "content-type": "application/json", ...JSON.parse(headers) },
  body,
  connections: Number(connections),
  duration: Number(seconds),
});
process.stdout.write(`${JSON.stringify({ rps: result.requests.average, total: result.requests.total, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx })}\n`);
