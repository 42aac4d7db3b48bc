/** Keeps the last few KB of a child's stderr, to explain why a server failed. */
export class StderrTail {
  private text = "";
  constructor(private readonly limit = 4096) {}

  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.limit);
  }

  /** The last `lines` non-empty lines. */
  tail(lines = 10): string {
    return this.text.split("\n").filter((l) => l.trim() !== "").slice(-lines).join("\n");
  }
}
