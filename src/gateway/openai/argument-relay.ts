/**
 * Streams one client tool call's argument text so that what the client puts together is what a
 * non-streamed answer would carry (`argumentText`): the model's text when it is valid JSON, the
 * repaired text when it was not.
 *
 * Deltas go out as they come while the text so far can still begin a valid JSON value (checked
 * incrementally with @streamparser/json). A trailing comma and whitespace wait for the next
 * delta, since a `}` after them would make the comma the broken part. From the first delta that
 * cannot continue valid JSON, the rest is held; at the end, the final text's remainder goes out.
 * Repairs (jsonrepair) keep the valid text they start from, so the final text starts with what
 * was sent; should it not, the client gets the model's own text, as a plain proxy would send.
 */
import { JSONParser } from "@streamparser/json";

/** A trailing comma and whitespace: held until the next delta shows they can stay. */
const UNSETTLED_TAIL = /,?\s*$/;

function validator(): JSONParser {
  // Only its verdict is wanted: values are not kept (keepStack off) and are dropped.
  const parser = new JSONParser({ keepStack: false });
  parser.onValue = () => undefined;
  return parser;
}

export class ArgumentRelay {
  private readonly parser = validator();
  private sent = "";
  private held = "";
  private valid = true;

  /** The text to send now for this delta (maybe ""). */
  push(delta: string): string {
    if (this.valid) {
      try {
        this.parser.write(delta);
      } catch {
        this.valid = false;
      }
    }
    const pending = this.held + delta;
    if (!this.valid) {
      this.held = pending;
      return "";
    }
    const cut = pending.search(UNSETTLED_TAIL);
    this.held = pending.slice(cut);
    const out = pending.slice(0, cut);
    this.sent += out;
    return out;
  }

  /** The text still to send once the call is complete and its final argument text is known. */
  finish(final: string): string {
    const rest = final.startsWith(this.sent) ? final.slice(this.sent.length) : this.held;
    this.sent += rest;
    this.held = "";
    return rest;
  }
}
