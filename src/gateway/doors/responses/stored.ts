/**
 * The stored responses' routes: `GET /v1/responses/{id}`, `DELETE /v1/responses/{id}` and
 * `GET /v1/responses/{id}/input_items`, each for the caller's own responses only.
 */
import type { Context } from "hono";
import { GatewayError } from "../../../core/index.ts";
import { tenantOf } from "../../shared/handler.ts";
import type { ResponseStore } from "../../state/responses.ts";

function notFound(id: string): GatewayError {
  return GatewayError.notFound(`Response with id '${id}' not found.`, "response_not_found", "response_id");
}

export function storedResponseRoutes(store: ResponseStore) {
  const find = async (c: Context) => {
    const id = c.req.param("id") ?? "";
    const entry = await store.get(tenantOf(c), id);
    if (!entry) throw notFound(id);
    return { id, entry };
  };
  return {
    get: async (c: Context) => c.json((await find(c)).entry.response),
    delete: async (c: Context) => {
      const { id } = await find(c);
      await store.delete(tenantOf(c), id);
      return c.json({ id, object: "response.deleted", deleted: true });
    },
    inputItems: async (c: Context) => {
      const { entry } = await find(c);
      const order = c.req.query("order") === "asc" ? "asc" : "desc";
      const items = order === "asc" ? entry.input : [...entry.input].reverse();
      const limit = Math.min(100, Math.max(1, Number(c.req.query("limit") ?? 20) || 20));
      const after = c.req.query("after");
      const start = after === undefined ? 0 : items.findIndex((item) => item["id"] === after) + 1;
      const data = items.slice(start, start + limit);
      return c.json({ object: "list", data, first_id: data[0]?.["id"] ?? null, last_id: data.at(-1)?.["id"] ?? null, has_more: start + limit < items.length });
    },
  };
}
