/** The web view's page and style sheet (its script is app.ts): strings, served by the gateway itself. */
export { UI_JS } from "./app.ts";

export const UI_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcp-gateway</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/app.css">
</head>
<body>
<header>
  <h1>mcp-gateway</h1>
  <nav><a href="#/">Requests</a><a href="#/servers">MCP servers</a></nav>
  <span id="live" class="live off">not live</span>
  <button id="forget" type="button" title="Forget the key in this tab">forget key</button>
</header>
<main id="main"></main>
<script src="/ui/app.js"></script>
</body>
</html>
`;

export const UI_CSS = `:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1d1d1f; --muted: #6b6b70; --line: #e2e2e4; --accent: #3558d6; --ok: #1b8a4b; --bad: #c2362b; --warn: #b7791f; --model: #6f8df0; --tool: #27a27a; }
@media (prefers-color-scheme: dark) { :root { --bg: #17171a; --fg: #ececef; --muted: #9a9aa2; --line: #2f2f35; --accent: #8aa2ff; --model: #5c7ae6; --tool: #2bb389; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); position: sticky; top: 0; background: var(--bg); z-index: 1; }
header h1 { font-size: 1.05rem; margin: 0; }
nav { display: flex; gap: 1rem; }
nav a { color: var(--muted); text-decoration: none; padding: .2rem 0; border-bottom: 2px solid transparent; }
nav a.current { color: var(--fg); border-bottom-color: var(--accent); }
#forget { margin-left: auto; background: none; border: 1px solid var(--line); color: var(--muted); border-radius: 4px; padding: .15rem .5rem; cursor: pointer; }
.live { font-size: .8rem; color: var(--muted); }
.live::before { content: ""; display: inline-block; width: .55rem; height: .55rem; border-radius: 50%; margin-right: .35rem; background: var(--muted); vertical-align: middle; }
.live.on::before { background: var(--ok); box-shadow: 0 0 0 3px color-mix(in srgb, var(--ok) 25%, transparent); }
main { padding: 1rem 1.2rem 3rem; max-width: 1200px; }
h2 { font-size: 1.15rem; margin: .4rem 0; }
h3 { font-size: 1rem; margin: 1.2rem 0 .5rem; }
h4 { font-size: .9rem; margin: .8rem 0 .3rem; }
.hint { color: var(--muted); }
.bad { color: var(--bad); }
a { color: var(--accent); }
table.requests { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
table.requests th { text-align: left; font-weight: 600; color: var(--muted); font-size: .8rem; border-bottom: 1px solid var(--line); padding: .35rem .5rem; }
table.requests td { padding: .4rem .5rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
table.requests td.num { text-align: right; }
tr.request { cursor: pointer; transition: background 1s; }
tr.request:hover, tr.request:focus { background: color-mix(in srgb, var(--accent) 8%, transparent); outline: none; }
tr.request.fresh { background: color-mix(in srgb, var(--accent) 18%, transparent); }
tr.request.running .status { color: var(--warn); }
tr.request.failed .status { color: var(--bad); font-weight: 600; }
tr.request.done .status { color: var(--ok); }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: .3rem 1.2rem; margin: .6rem 0; }
.fact dt { color: var(--muted); font-size: .75rem; }
.fact dd { margin: 0; overflow-wrap: anywhere; }
ol.timeline { list-style: none; padding: 0; margin: 0; border-top: 1px solid var(--line); }
li.entry { display: grid; grid-template-columns: minmax(260px, 34%) 1fr; gap: .2rem 1rem; padding: .35rem 0; border-bottom: 1px solid var(--line); }
.entry-head { cursor: pointer; display: flex; flex-direction: column; }
.entry-label { font-weight: 500; overflow-wrap: anywhere; }
.entry-time { color: var(--muted); font-size: .78rem; }
.track { position: relative; height: 1.1rem; align-self: center; background: color-mix(in srgb, var(--line) 45%, transparent); border-radius: 3px; }
.bar { position: absolute; top: 0; bottom: 0; border-radius: 3px; min-width: 3px; background: var(--muted); }
.bar.model { background: var(--model); }
.bar.tool { background: var(--tool); }
.bar.retry, .bar.fallback { background: var(--warn); }
.bar.error, .bar.failed { background: var(--bad); }
.bar.open { opacity: .55; }
.details { grid-column: 1 / -1; padding: .2rem 0 .3rem 1rem; font-size: .85rem; }
.details .label { color: var(--muted); font-size: .75rem; margin-top: .3rem; }
pre { margin: .2rem 0; padding: .45rem .6rem; background: color-mix(in srgb, var(--line) 40%, transparent); border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 22rem; overflow: auto; font-size: .8rem; }
section.server { border: 1px solid var(--line); border-radius: 6px; padding: .4rem 1rem .8rem; margin: .8rem 0; }
.badge { font-size: .72rem; font-weight: 600; border-radius: 999px; padding: .05rem .5rem; margin-left: .4rem; vertical-align: middle; background: var(--line); color: var(--fg); }
.badge.ready { background: color-mix(in srgb, var(--ok) 20%, transparent); color: var(--ok); }
.badge.failed, .badge.unavailable { background: color-mix(in srgb, var(--bad) 18%, transparent); color: var(--bad); }
.badge.starting, .badge.changed { background: color-mix(in srgb, var(--warn) 20%, transparent); color: var(--warn); }
ul.tools { list-style: none; padding: 0; }
li.tool { padding: .4rem 0; border-bottom: 1px solid var(--line); }
details summary { cursor: pointer; color: var(--muted); font-size: .8rem; }
ul.warnings { margin: .2rem 0; color: var(--warn); font-size: .8rem; }
form.key { max-width: 26rem; display: flex; flex-direction: column; gap: .6rem; margin-top: 2rem; }
form.key input { padding: .45rem .6rem; border: 1px solid var(--line); border-radius: 4px; background: transparent; color: var(--fg); }
form.key button { align-self: flex-start; padding: .35rem 1rem; border-radius: 4px; border: 0; background: var(--accent); color: white; cursor: pointer; }
`;
