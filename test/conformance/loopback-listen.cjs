// Preload (`node --require`) for a server under test that picks its own port: every TCP listen
// is pinned to 127.0.0.1 and, once listening, the port is reported on stderr as
// `CONFORMANCE_LISTENING <port>` (so PORT=0 works and the test knows where to connect).
"use strict";
const net = require("node:net");

const original = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const first = args[0];
  const callbackIndex = args.findIndex((a) => typeof a === "function");
  const callback = callbackIndex === -1 ? undefined : args[callbackIndex];
  this.once("listening", () => {
    const address = this.address();
    if (address && typeof address === "object") process.stderr.write(`CONFORMANCE_LISTENING ${address.port}\n`);
  });
  if (first !== null && typeof first === "object") {
    return original.call(this, { ...first, host: "127.0.0.1" }, callback);
  }
  const port = typeof first === "number" || typeof first === "string" ? Number(first) : 0;
  return original.call(this, port, "127.0.0.1", callback);
};
