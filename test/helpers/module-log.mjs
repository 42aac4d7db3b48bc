// `node --import <this file>`: every module the process loads from node_modules is appended to the
// file named by MODULE_LOG (one URL a line), by a module hook (which runs on its own thread).
import { register } from "node:module";

const hooks = `
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.includes("/node_modules/")) appendFileSync(${JSON.stringify(process.env.MODULE_LOG ?? "")}, url + "\\n");
  return next(url, context);
}`;
if (process.env.MODULE_LOG) register(`data:text/javascript,${encodeURIComponent(hooks)}`);
