// `node --require <this file>`: each event-loop delay monitor the process starts (perf_hooks'
// monitorEventLoopDelay: prom-client's default metrics start one, sampling every 10 ms) is
// appended to the file named by LOOP_MONITOR_LOG, one line with its options each.
const perfHooks = require("node:perf_hooks");
const { appendFileSync } = require("node:fs");
const start = perfHooks.monitorEventLoopDelay;
perfHooks.monitorEventLoopDelay = function monitorEventLoopDelay(options) {
  if (process.env.LOOP_MONITOR_LOG) appendFileSync(process.env.LOOP_MONITOR_LOG, `${JSON.stringify(options ?? {})}\n`);
  return start.call(this, options);
};
