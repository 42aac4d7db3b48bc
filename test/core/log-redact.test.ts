import { describe, expect, it } from "vitest";
import { REDACTED, redactSecretKeys } from "../../src/core/log-redact.ts";

describe("redactSecretKeys", () => {
  it("replaces credential keys at the top level and two levels down, case-insensitively", () => {
    const input = {
      Authorization: "Bearer a",
      apiKey: "k",
      headers: { "x-api-key": "x", "api-key": "y", accept: "json" },
      request: { headers: { authorization: "Bearer b" }, url: "u" },
    };
    expect(redactSecretKeys(input)).toEqual({
      Authorization: REDACTED,
      apiKey: REDACTED,
      headers: { "x-api-key": REDACTED, "api-key": REDACTED, accept: "json" },
      request: { headers: { authorization: REDACTED }, url: "u" },
    });
  });

  it("copies instead of mutating what the caller logged", () => {
    const headers = { authorization: "Bearer a" };
    const input = { headers };
    const out = redactSecretKeys(input);
    expect(out).not.toBe(input);
    expect(headers.authorization).toBe("Bearer a");
  });

  it("returns the very same object when nothing needs redacting", () => {
    const input = { requestId: "r", usage: { inputTokens: 1 }, list: [{ authorization: "in an array, not a header map" }] };
    expect(redactSecretKeys(input)).toBe(input);
  });

  it("leaves class instances (errors) to their serializers", () => {
    const err = Object.assign(new Error("boom"), { authorization: "kept for the err serializer" });
    expect(redactSecretKeys({ err }).err).toBe(err);
  });
});
