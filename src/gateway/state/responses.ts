/**
 * Stored responses of the Responses API (`store`, `previous_response_id`, `GET /v1/responses/{id}`):
 * each response's object as answered, the input items it was asked with, and the whole neutral
 * conversation up to its end (the hidden MCP steps and provider data included), which a follow-up
 * continues from. Behind the same small store interface as the hidden steps, so a shared store
 * can serve it; keys are scoped by tenant, as one caller must never read another's responses.
 */
import type { Message } from "../../core/index.ts";
import type { StateStore } from "./store.ts";

export interface StoredResponse {
  /** The response object, as the client got it. */
  response: { [key: string]: unknown };
  /** The input items of the request, each with an id. */
  input: { [key: string]: unknown }[];
  /** The conversation through this response: what `previous_response_id` continues. */
  messages: Message[];
  /** MCP servers whose tools the conversation has listed (`mcp_list_tools`), not to list again. */
  listed: string[];
  /** Whether the first message is the request's `instructions` (which a follow-up does not inherit). */
  instructions?: boolean;
}

export class ResponseStore {
  constructor(private readonly store: StateStore<StoredResponse>) {}

  get(tenant: string, id: string): Promise<StoredResponse | undefined> {
    return this.store.get(`${tenant}:${id}`);
  }

  /**
   * `responseJson`: the response's JSON as the client got it, put in the entry's JSON as is
   * rather than serialized a second time (most of an entry is its response).
   */
  set(tenant: string, id: string, entry: StoredResponse, responseJson?: string): Promise<void> {
    const key = `${tenant}:${id}`;
    if (responseJson === undefined) return this.store.set(key, entry);
    const { response: _response, ...rest } = entry;
    // `rest` always has fields (input, messages, listed): "{…}" without its "{" follows a comma.
    return this.store.setJson(key, `{"response":${responseJson},${JSON.stringify(rest).slice(1)}`);
  }

  delete(tenant: string, id: string): Promise<void> {
    return this.store.delete(`${tenant}:${id}`);
  }
}
