/**
 * The web view's script, served as /ui/app.js (no build step: plain browser JavaScript in a
 * string). Three views by the URL's hash: the recent requests (live, over /ui/api/events read with
 * fetch so that the key can go in a header), one request's timeline, and the MCP servers. All
 * data is put in the page as text (textContent), never as HTML.
 */
export const UI_JS = String.raw`"use strict";
(function () {
  var KEY = "mcp-gateway-key";
  var main = document.getElementById("main");
  var live = document.getElementById("live");
  var requests = new Map();
  var view = { name: "requests", id: null };
  var streamAbort = null;

  function key() { return sessionStorage.getItem(KEY) || ""; }
  function headers() { var k = key(); return k ? { authorization: "Bearer " + k } : {}; }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var name in attrs) {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) continue;
      if (name === "text") node.textContent = String(value);
      else if (name === "class") node.className = value;
      else if (name === "onclick") node.addEventListener("click", value);
      else if (name === "style") node.style.cssText = value; // CSSOM: allowed by the page's CSP, unlike a style attribute
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    (children || []).forEach(function (child) { if (child !== null && child !== undefined) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child); });
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function api(path) {
    return fetch(path, { headers: headers(), cache: "no-store" }).then(function (response) {
      if (response.status === 401) { askForKey(); throw new Error("a key is needed"); }
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    });
  }

  function askForKey(message) {
    stopStream();
    clear(main);
    var input = el("input", { type: "password", id: "key", placeholder: "gateway API key", autocomplete: "off", "aria-label": "Gateway API key" });
    var form = el("form", { class: "key" }, [
      el("h2", { text: "This gateway needs a key" }),
      el("p", { text: message || "Its pages show requests and servers only to key holders. The key stays in this tab (session storage)." }),
      input,
      el("button", { type: "submit", text: "Open" }),
    ]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      sessionStorage.setItem(KEY, input.value.trim());
      route();
    });
    main.appendChild(form);
    input.focus();
  }

  function ms(value) {
    if (value === undefined || value === null) return "";
    return value >= 10000 ? (value / 1000).toFixed(1) + " s" : value + " ms";
  }
  function time(epoch) { return new Date(epoch).toLocaleTimeString(); }
  function statusText(r) {
    if (r.state === "running") return "running";
    return String(r.status === undefined ? "" : r.status);
  }

  /* ---------------- live stream ---------------- */

  function stopStream() {
    if (streamAbort) streamAbort.abort();
    streamAbort = null;
    live.className = "live off";
    live.textContent = "not live";
  }

  function startStream() {
    if (streamAbort) return;
    var controller = new AbortController();
    streamAbort = controller;
    fetch("/ui/api/events", { headers: headers(), signal: controller.signal, cache: "no-store" }).then(function (response) {
      if (!response.ok || !response.body) throw new Error("HTTP " + response.status);
      live.className = "live on";
      live.textContent = "live";
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (step) {
          if (step.done) throw new Error("stream ended");
          buffer += decoder.decode(step.value, { stream: true });
          var end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            var frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            var event = "message", data = "";
            frame.split("\n").forEach(function (line) {
              if (line.indexOf("event: ") === 0) event = line.slice(7);
              else if (line.indexOf("data: ") === 0) data += line.slice(6);
            });
            if (event === "request" && data) onRequest(JSON.parse(data));
          }
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      if (streamAbort !== controller) return;
      streamAbort = null;
      live.className = "live off";
      live.textContent = "reconnecting";
      setTimeout(function () { if (!streamAbort && view.name !== "key") startStream(); }, 2000);
    });
  }

  function onRequest(summary) {
    var known = requests.has(summary.id + "#" + summary.seq);
    requests.set(summary.id + "#" + summary.seq, summary);
    if (view.name === "requests") upsertRow(summary, !known);
    if (view.name === "request" && view.id === summary.id) loadRequest(summary.id, true);
  }

  /* ---------------- requests ---------------- */

  var tbody = null;

  function row(r) {
    var tokens = r.inputTokens || r.outputTokens ? r.inputTokens + " / " + r.outputTokens : "";
    var who = r.answeredBy ? r.answeredBy + (r.answeredModel ? " · " + r.answeredModel : "") : (r.provider || "");
    var tr = el("tr", { class: "request " + r.state, "data-id": r.id, "data-seq": r.seq, tabindex: "0", title: r.error || "" }, [
      el("td", { text: time(r.startedAt) }),
      el("td", { text: r.door.replace("_", " ") + (r.stream ? " (stream)" : "") }),
      el("td", { text: r.key || "" }),
      el("td", { text: r.model || "" }),
      el("td", { text: who }),
      el("td", { class: "status", text: statusText(r) }),
      el("td", { class: "num", text: String(r.turns) }),
      el("td", { class: "num", text: String(r.toolCalls + (r.clientToolCalls ? " + " + r.clientToolCalls + " client" : "")) }),
      el("td", { class: "num", text: tokens }),
      el("td", { class: "num", text: ms(r.ms) }),
    ]);
    tr.addEventListener("click", function () { location.hash = "#/requests/" + encodeURIComponent(r.id); });
    tr.addEventListener("keydown", function (event) { if (event.key === "Enter") location.hash = "#/requests/" + encodeURIComponent(r.id); });
    return tr;
  }

  function upsertRow(r, fresh) {
    if (!tbody) return;
    var existing = tbody.querySelector('tr[data-seq="' + r.seq + '"]');
    var next = row(r);
    if (existing) tbody.replaceChild(next, existing);
    else {
      var empty = document.getElementById("empty");
      if (empty) empty.remove();
      tbody.insertBefore(next, tbody.firstChild);
    }
    if (fresh) { next.classList.add("fresh"); setTimeout(function () { next.classList.remove("fresh"); }, 1500); }
  }

  function showRequests() {
    clear(main);
    tbody = el("tbody");
    main.appendChild(el("h2", { text: "Recent requests" }));
    main.appendChild(el("p", { class: "hint", text: "Newest first, as they arrive. Open one to see its timeline." }));
    main.appendChild(el("table", { class: "requests" }, [
      el("thead", null, [el("tr", null, ["time", "door", "key", "model", "answered by", "status", "turns", "tool calls", "tokens in / out", "time taken"].map(function (h) { return el("th", { text: h }); }))]),
      tbody,
    ]));
    api("/ui/api/requests").then(function (data) {
      requests.clear();
      data.requests.forEach(function (r) { requests.set(r.id + "#" + r.seq, r); });
      if (data.requests.length === 0) tbody.appendChild(el("tr", { id: "empty" }, [el("td", { colspan: "10", class: "hint", text: "No requests yet: send one to /v1/chat/completions, /v1/messages or /v1/responses." })]));
      data.requests.forEach(function (r) { tbody.appendChild(row(r)); });
      startStream();
    }).catch(showError);
  }

  /* ---------------- one request ---------------- */

  function label(entry) {
    switch (entry.kind) {
      case "model": return "turn " + entry.turn + " · model " + (entry.provider ? entry.provider + "/" : "") + (entry.model || "");
      case "tool": return "tool " + entry.name;
      case "retry": return "retry " + entry.attempt + " · " + entry.provider;
      case "fallback": return "fallback " + entry.from + " → " + entry.to;
      case "error": return "error" + (entry.status ? " " + entry.status : "");
      case "hidden_steps": return "hidden steps kept";
      case "client_tools": return "handed back to the client";
      default: return entry.kind;
    }
  }

  function details(entry) {
    var parts = [];
    if (entry.kind === "model") {
      if (entry.responseModel) parts.push(el("div", { text: "answered by " + entry.provider + " · " + entry.responseModel + (entry.finish ? " · finish: " + entry.finish : "") }));
      if (entry.inputTokens !== undefined) parts.push(el("div", { text: "tokens: " + entry.inputTokens + " in, " + entry.outputTokens + " out" }));
      if (entry.message) parts.push(el("div", { class: "bad", text: entry.message }));
    }
    if (entry.kind === "tool") {
      if (entry.server) parts.push(el("div", { text: "MCP server " + entry.server + " · tool " + entry.tool + (entry.isError ? " · failed" : "") }));
      if (entry.args !== undefined) parts.push(el("div", { class: "label", text: "arguments" }), el("pre", { text: entry.args }));
      if (entry.result !== undefined) parts.push(el("div", { class: "label", text: "result" }), el("pre", { class: entry.isError ? "bad" : "", text: entry.result }));
    }
    if (entry.kind === "retry") parts.push(el("div", { text: "after " + (entry.status || "") + ": " + (entry.message || "") + " · waited " + entry.delayMs + " ms" }));
    if (entry.kind === "fallback" || entry.kind === "error") parts.push(el("div", { class: entry.kind === "error" ? "bad" : "", text: (entry.status ? entry.status + ": " : "") + (entry.message || "") }));
    if (entry.kind === "hidden_steps" || entry.kind === "client_tools") parts.push(el("div", { text: entry.detail || "" }));
    return parts;
  }

  function timeline(record) {
    var total = Math.max(1, record.ms || (Date.now() - record.startedAt));
    var rows = record.timeline.map(function (entry) {
      var left = Math.min(100, (entry.at / total) * 100);
      var width = entry.ms !== undefined ? Math.max(0.6, (entry.ms / total) * 100) : (entry.kind === "model" || entry.kind === "tool" ? Math.max(0.6, 100 - left) : 0.6);
      var open = entry.ms === undefined && (entry.kind === "model" || entry.kind === "tool") && record.state === "running";
      var bar = el("div", { class: "bar " + entry.kind + (entry.isError || entry.kind === "error" ? " failed" : "") + (open ? " open" : ""), style: "left:" + left.toFixed(2) + "%;width:" + Math.min(width, 100 - left).toFixed(2) + "%" });
      var info = el("div", { class: "details", hidden: true }, details(entry));
      var head = el("div", { class: "entry-head", tabindex: "0", role: "button" }, [
        el("span", { class: "entry-label", text: label(entry) }),
        el("span", { class: "entry-time", text: "at " + ms(entry.at) + (entry.ms !== undefined ? " · " + ms(entry.ms) : open ? " · running" : "") }),
      ]);
      var toggle = function () { info.hidden = !info.hidden; };
      head.addEventListener("click", toggle);
      head.addEventListener("keydown", function (event) { if (event.key === "Enter") toggle(); });
      if (entry.kind !== "model" || entry.message) info.hidden = false;
      return el("li", { class: "entry " + entry.kind }, [head, el("div", { class: "track" }, [bar]), info]);
    });
    return el("ol", { class: "timeline", "aria-label": "timeline" }, rows);
  }

  function fact(name, value) {
    if (value === undefined || value === null || value === "") return null;
    return el("div", { class: "fact" }, [el("dt", { text: name }), el("dd", { text: String(value) })]);
  }

  function loadRequest(id, quiet) {
    api("/ui/api/requests/" + encodeURIComponent(id)).then(function (record) {
      if (view.name !== "request" || view.id !== id) return;
      clear(main);
      main.appendChild(el("p", null, [el("a", { href: "#/", text: "← recent requests" })]));
      main.appendChild(el("h2", { text: "Request " + record.id }));
      main.appendChild(el("dl", { class: "facts" }, [
        fact("state", record.state + (record.status ? " (" + record.status + ")" : "")),
        fact("door", record.door.replace("_", " ") + (record.stream ? ", streamed" : "")),
        fact("key", record.key),
        fact("model asked for", record.model),
        fact("answered by", record.answeredBy ? record.answeredBy + (record.answeredModel ? " · " + record.answeredModel : "") : ""),
        fact("stop", record.stop),
        fact("turns", record.turns),
        fact("MCP tool calls", record.toolCalls),
        fact("client tool calls", record.clientToolCalls || ""),
        fact("tokens", record.inputTokens + " in, " + record.outputTokens + " out"),
        fact("started", new Date(record.startedAt).toLocaleString()),
        fact("time taken", ms(record.ms)),
        fact("trace id", record.traceId),
        fact("error", record.error),
      ]));
      main.appendChild(el("h3", { text: "Timeline" }));
      if (record.timeline.length === 0) main.appendChild(el("p", { class: "hint", text: "Nothing happened yet." }));
      else main.appendChild(timeline(record));
      startStream();
    }).catch(function (error) { if (!quiet) showError(error); });
  }

  /* ---------------- servers ---------------- */

  function schemaBlock(title, schema) {
    return el("details", null, [el("summary", { text: title }), el("pre", { text: JSON.stringify(schema, null, 2) })]);
  }

  function showServers() {
    clear(main);
    main.appendChild(el("h2", { text: "MCP servers" }));
    api("/ui/api/servers").then(function (data) {
      if (data.servers.length === 0) main.appendChild(el("p", { class: "hint", text: "No MCP server is configured." }));
      data.servers.forEach(function (s) {
        var facts = el("dl", { class: "facts" }, [
          fact("transport", s.transport),
          fact("tools", s.toolCount),
          fact("restarts", s.restarts),
          fact("connection attempts", s.attempts),
          fact("started in", s.startupMs !== undefined ? ms(s.startupMs) : ""),
          fact("next retry", s.retryAt ? new Date(s.retryAt).toLocaleTimeString() : ""),
        ]);
        var card = el("section", { class: "server", "data-server": s.name }, [
          el("h3", null, [s.name + " ", el("span", { class: "badge " + s.status, text: s.status })]),
          facts,
        ]);
        if (s.error) card.appendChild(el("pre", { class: "bad", text: s.error }));
        if (s.lastErrors.length > 0) {
          card.appendChild(el("h4", { text: "Last failed tool calls" }));
          card.appendChild(el("ul", { class: "errors" }, s.lastErrors.map(function (e) { return el("li", { text: time(e.at) + " " + e.tool + ": " + e.message }); })));
        }
        if (s.tools.length > 0) {
          card.appendChild(el("h4", { text: "Tools" }));
          card.appendChild(el("ul", { class: "tools" }, s.tools.map(function (t) {
            var changed = t.targets.filter(function (target) { return target.warnings.length > 0; });
            var item = el("li", { class: "tool" }, [
              el("div", null, [el("strong", { text: t.name }), t.name !== t.tool ? " (" + t.tool + ")" : "", changed.length > 0 ? el("span", { class: "badge changed", text: "adjusted for " + changed.map(function (c) { return c.target; }).join(", ") }) : null]),
              t.description ? el("div", { class: "hint", text: t.description }) : null,
              schemaBlock("input schema as the server lists it", t.inputSchema),
            ]);
            t.targets.forEach(function (target) {
              var title = "as " + target.target + " providers get it (" + target.providers.join(", ") + ")" + (target.strict === false ? ", strict off" : "");
              item.appendChild(schemaBlock(title, target.inputSchema));
              if (target.warnings.length > 0) item.appendChild(el("ul", { class: "warnings" }, target.warnings.map(function (w) { return el("li", { text: target.target + ": " + w }); })));
            });
            return item;
          })));
        }
        main.appendChild(card);
      });
    }).catch(showError);
  }

  function showError(error) {
    if (String(error && error.message) === "a key is needed") return;
    main.appendChild(el("p", { class: "bad", text: "Could not load: " + (error && error.message ? error.message : String(error)) }));
  }

  function route() {
    var hash = location.hash || "#/";
    document.querySelectorAll("nav a").forEach(function (a) { a.classList.toggle("current", hash.indexOf(a.getAttribute("href")) === 0 && (a.getAttribute("href") !== "#/" || hash === "#/" || hash.indexOf("#/requests") === 0)); });
    var match = /^#\/requests\/(.+)$/.exec(hash);
    tbody = null;
    if (match) { view = { name: "request", id: decodeURIComponent(match[1]) }; loadRequest(view.id); }
    else if (hash.indexOf("#/servers") === 0) { view = { name: "servers", id: null }; showServers(); }
    else { view = { name: "requests", id: null }; showRequests(); }
  }

  document.getElementById("forget").addEventListener("click", function () { sessionStorage.removeItem(KEY); stopStream(); askForKey("The key was forgotten in this tab."); });
  window.addEventListener("hashchange", route);
  route();
})();
`;
