/** The command line's own parsing (no process spawned). */
import { describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli/args.ts";

describe("parseCli", () => {
  it("takes a port in digits, 0-65535", () => {
    expect(parseCli(["serve", "--port", "4000"]).port).toBe(4000);
    expect(parseCli(["serve", "-p", "0"]).port).toBe(0);
  });

  it.each(["1e3", "0x10", "", "65536", "4000.5", " 80"])("refuses --port %j, naming it", (value) => {
    expect(() => parseCli(["serve", "--port", value])).toThrow(`--port: expected a port number 0-65535, got "${value}"`);
  });

  it("defaults to help without a command", () => {
    expect(parseCli([]).command).toBe("help");
  });
});
