// Preload (`node --require`) that pins every TCP listen to 127.0.0.1, so a test server that
// binds all interfaces by default (server-everything's HTTP modes) is reachable only locally.
"use strict";
const net = require("node:net");

const original = net.Server.prototype.listen;
const LOOPBACK = "127.0.0.1";

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const first = args[0];
  if (first !== null && typeof first === "object") {
    // listen(options[, cb]); leave pipes, fds and handles alone.
    if (first.path === undefined && first.fd === undefined && first.handle === undefined && !("_handle" in first)) {
      args[0] = { ...first, host: LOOPBACK };
    }
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, cb])
    if (typeof args[1] === "string") args[1] = LOOPBACK;
    else args.splice(1, 0, LOOPBACK);
  } else if (first === undefined || typeof first === "function") {
    // listen([cb]): a random port, on loopback.
    args.splice(0, first === undefined ? 1 : 0, 0, LOOPBACK);
  }
  return original.apply(this, args);
};
