/**
 * The web view in a real headless browser (Debian's chromium, driven by playwright-core), as a
 * person uses it: open /ui, give the gateway key, watch a request appear while it runs and finish
 * without reloading, open its timeline (model turns, the MCP call with its arguments and result),
 * and the MCP servers page (state, tools, the schema each provider dialect gets). Screenshots are
 * kept in test-artifacts/ui/ (git-ignored).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { root } from "../helpers/serve-process.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARTIFACTS = join(root, "test-artifacts", "ui");
const KEY = "ui-admin-key-0123456789";
const TEAM = "ui-team-key-0123456789";

let model: ScriptedUpstream;
let gw: RunningGateway;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium package (.ci/run does), or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  model = await startScriptedUpstream("openai");
  gw = await startGateway({
    providers: {
      p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: "k" },
      g: { type: "gemini", baseURL: `${model.url}/v1beta`, apiKey: "k" },
    },
    gateway: { apiKeys: [KEY, { key: TEAM, name: "team", models: ["p/*"] }] },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await model?.close();
});

function chat(body: Record<string, unknown>, key = KEY): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
}

async function openWithKey(key: string): Promise<{ page: Page; errors: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => {
    // The page's first data request is refused until the key is given: that one is expected.
    if (message.type() === "error" && !message.text().includes("status of 401")) errors.push(message.text());
  });
  await page.goto(`${gw.url}/ui`);
  await page.getByText("This gateway needs a key").waitFor();
  await page.screenshot({ path: join(ARTIFACTS, "0-key.png") });
  await page.getByLabel("Gateway API key").fill(key);
  await page.getByRole("button", { name: "Open" }).click();
  await page.getByRole("heading", { name: "Recent requests" }).waitFor();
  await page.locator("#live.on").waitFor();
  return { page, errors };
}

describe("the web view /ui", () => {
  it("shows a request live as it runs and ends, and its timeline with the MCP call", async () => {
    const { page, errors } = await openWithKey(KEY);
    let release!: () => void;
    const hang = new Promise<void>((resolve) => (release = resolve));
    model.script([{ calls: [{ id: "call_ui", name: "everything__echo", arguments: { message: "hello from the browser test" } }] }, { text: "The echo said hello.", hang }]);
    const answer = chat({ model: "p/m", stream: true, messages: [{ role: "user", content: "echo something" }] });
    // The request shows up while it runs (the model's second turn is held), without a reload.
    const row = page.locator("tr.request").filter({ hasText: "p/m" }).first();
    await row.waitFor();
    await expect.poll(() => row.locator(".status").textContent(), { timeout: 10_000 }).toBe("running");
    await page.screenshot({ path: join(ARTIFACTS, "1-running.png") });
    release();
    const response = await answer;
    expect(await response.text()).toContain("data: [DONE]");
    // ... and its end, still without a reload.
    await expect.poll(() => row.locator(".status").textContent(), { timeout: 10_000 }).toBe("200");
    const cells = await row.locator("td").allTextContents();
    expect(cells[1]).toBe("chat completions (stream)");
    expect(cells[4]).toBe("p · m");
    expect(cells[6]).toBe("2"); // turns
    expect(cells[7]).toBe("1"); // MCP tool calls
    expect(cells[8]).toBe("22 / 14");
    await page.screenshot({ path: join(ARTIFACTS, "2-done.png") });

    // Its timeline: two model turns and the MCP call between them, with arguments and result.
    await row.click();
    await page.getByRole("heading", { name: /^Request / }).waitFor();
    const timeline = page.getByRole("list", { name: "timeline" });
    const labels = await timeline.locator(".entry-label").allTextContents();
    expect(labels).toEqual(["turn 1 · model p/m", "tool everything__echo", "turn 2 · model p/m"]);
    const tool = timeline.locator("li.entry.tool");
    await expect.poll(() => tool.textContent()).toContain("MCP server everything · tool echo");
    expect(await tool.locator("pre").first().textContent()).toBe('{"message":"hello from the browser test"}');
    expect(await tool.locator("pre").nth(1).textContent()).toContain("hello from the browser test");
    // Model turns open on a click: who answered and the tokens.
    await timeline.locator("li.entry.model .entry-head").first().click();
    await expect.poll(() => timeline.locator("li.entry.model").first().textContent()).toContain("tokens: 11 in, 7 out");
    // Bars on the time axis: the tool's starts after the first turn's.
    const [modelBox, toolBox] = [await timeline.locator("li.entry.model .bar").first().boundingBox(), await tool.locator(".bar").boundingBox()];
    expect(toolBox!.x).toBeGreaterThanOrEqual(modelBox!.x);
    await page.screenshot({ path: join(ARTIFACTS, "3-timeline.png"), fullPage: true });
    expect(errors, errors.join("\n")).toEqual([]);
  });

  it("shows retries, errors and client tool calls in the timeline", async () => {
    const { page } = await openWithKey(KEY);
    model.script([{ calls: [{ id: "call_t", name: "get_time", arguments: {} }] }]);
    await (await chat({ model: "p/m", messages: [{ role: "user", content: "time?" }], tools: [{ type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } }] })).json();
    const row = page.locator("tr.request").filter({ hasText: "1 client" }).first();
    await row.waitFor();
    await row.click();
    await page.getByText("handed back to the client").waitFor();
    expect(await page.locator("li.entry.client_tools").textContent()).toContain("get_time");
    // The turn the client does not see whole is kept for its follow-up.
    expect(await page.locator("li.entry.hidden_steps").textContent()).toContain("1 message kept for the client's follow-up");
    await page.goto(`${gw.url}/ui#/`);
    // A refused request (an unknown model) appears as failed, with the gateway's error.
    expect((await chat({ model: "nobody/m", messages: [{ role: "user", content: "hi" }] })).status).toBe(404);
    const failed = page.locator("tr.request.failed").first();
    await failed.waitFor();
    expect(await failed.locator(".status").textContent()).toBe("404");
    await failed.click();
    await page.locator("li.entry.error").waitFor();
    expect(await page.locator("li.entry.error").textContent()).toMatch(/404/);
    await page.screenshot({ path: join(ARTIFACTS, "4-failed.png"), fullPage: true });
  });

  it("shows the MCP servers: state, tools and the schema each provider dialect gets", async () => {
    const { page } = await openWithKey(KEY);
    await page.getByRole("link", { name: "MCP servers" }).click();
    const server = page.locator('section.server[data-server="everything"]');
    await server.waitFor();
    expect(await server.locator(".badge").first().textContent()).toBe("ready");
    const echo = server.locator("li.tool").filter({ hasText: "everything__echo" });
    expect(await echo.textContent()).toContain("(echo)");
    const schemas = await echo.locator("summary").allTextContents();
    expect(schemas).toEqual(["input schema as the server lists it", "as openai providers get it (p)", "as gemini providers get it (g)"]);
    await echo.locator("summary").nth(2).click();
    expect(JSON.parse((await echo.locator("pre").nth(2).textContent())!)).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    // What conversion changed, for tools whose schema a dialect cannot take as it is.
    expect(await server.locator(".badge.changed").count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, "5-servers.png"), fullPage: true });
  });

  it("asks again for a wrong key, and shows a key with limits of its own only its own requests", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${gw.url}/ui`);
    await page.getByLabel("Gateway API key").fill("wrong-key");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByText("This gateway needs a key").waitFor();
    const api = await fetch(`${gw.url}/ui/api/requests`);
    expect(api.status).toBe(401);

    model.script([{ text: "team answer" }]);
    expect((await chat({ model: "p/m", messages: [{ role: "user", content: "from the team" }] }, TEAM)).status).toBe(200);
    const { page: teamPage } = await openWithKey(TEAM);
    const rows = teamPage.locator("tr.request");
    await rows.first().waitFor();
    const keys = await rows.evaluateAll((trs) => trs.map((tr) => tr.children[2]!.textContent));
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys)).toEqual(new Set(["team"]));
    const all = (await (await fetch(`${gw.url}/ui/api/requests`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { requests: { key?: string }[] };
    expect(all.requests.some((r) => r.key !== "team")).toBe(true);
  });
});
