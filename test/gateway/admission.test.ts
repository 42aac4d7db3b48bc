/** checkThen / checkLayer: a refusal answers without the next layer; a pass runs it, once. */
import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { checkLayer, checkThen, type Check } from "../../src/gateway/http/admission.ts";

const refuseWithoutPass: Check = (c) => (c.req.header("x-pass") === "yes" ? undefined : c.json({ refused: true }, 403));

describe("admission checks", () => {
  it("checkThen: a refused request never reaches the gate nor the route", async () => {
    const seen: string[] = [];
    const app = new Hono();
    app.use(checkThen(refuseWithoutPass, async (_c, next) => {
      seen.push("gate");
      await next();
    }));
    app.get("/", (c) => {
      seen.push("route");
      return c.text("ok");
    });
    const refused = await app.request("/");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ refused: true });
    expect(seen).toEqual([]);
    const passed = await app.request("/", { headers: { "x-pass": "yes" } });
    expect(await passed.text()).toBe("ok");
    expect(seen).toEqual(["gate", "route"]);
  });

  it("checkLayer: the check alone, as a layer", async () => {
    const app = new Hono();
    app.use(checkLayer(refuseWithoutPass));
    app.get("/", (c) => c.text("ok"));
    expect((await app.request("/")).status).toBe(403);
    expect(await (await app.request("/", { headers: { "x-pass": "yes" } })).text()).toBe("ok");
  });
});
