/**
 * A stored response given with its JSON (the text the client got) reads back as the same entry
 * as one stored without it: the text is put in the entry's JSON as is, not serialized again.
 */
import { describe, expect, it } from "vitest";
import { ResponseStore, type StoredResponse } from "../../src/gateway/state/responses.ts";
import { MemoryStore } from "../../src/gateway/state/store.ts";

const entry: StoredResponse = {
  response: { id: "resp_1", object: "response", output: [{ type: "message", content: [{ type: "output_text", text: 'a "quoted" héllo' }] }], usage: null },
  input: [{ id: "in_1", type: "message", role: "user", content: "hi" }],
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  listed: ["everything"],
  instructions: false,
};

describe("ResponseStore", () => {
  it("stores an entry with its response's JSON as it stores the entry alone", async () => {
    const store = new ResponseStore(new MemoryStore<StoredResponse>());
    await store.set("t", "plain", entry);
    await store.set("t", "with-json", entry, JSON.stringify(entry.response));
    const plain = await store.get("t", "plain");
    expect(plain).toEqual(entry);
    expect(await store.get("t", "with-json")).toEqual(plain);
  });

  it("keeps the response's text as given: what the client got is what a retrieve returns", async () => {
    const store = new ResponseStore(new MemoryStore<StoredResponse>());
    const sent = JSON.stringify({ ...entry.response, id: "resp_sent" });
    await store.set("t", "r", entry, sent);
    expect((await store.get("t", "r"))!.response).toEqual(JSON.parse(sent));
  });
});
