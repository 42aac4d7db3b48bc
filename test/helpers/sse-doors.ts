/**
 * The three front doors as a streaming client sees them: the request that asks for a stream,
 * and the answer's text read back from a whole SSE body, which must be a complete stream of
 * that door (every frame ended, the door's opening and closing events) or the test fails.
 */
import { expect } from "vitest";

export interface Door {
  path: string;
  /** A streamed request for `model`. */
  body(model: string): Record<string, unknown>;
  /** The answer's text in a complete SSE body of this door. */
  text(sse: string): string;
}

interface Frame {
  event: string | undefined;
  data: string;
}

/** The body's frames (comments, such as keep-alives, left out); the body must end at a frame's end. */
export function sseFrames(sse: string): Frame[] {
  expect(sse.endsWith("\n\n"), `the body ends at a frame's end: ${JSON.stringify(sse.slice(-80))}`).toBe(true);
  return sse
    .slice(0, -2)
    .split("\n\n")
    .filter((frame) => !frame.startsWith(":"))
    .map((frame) => {
      const lines = frame.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice("event: ".length);
      const data = lines.find((line) => line.startsWith("data: "));
      expect(data, JSON.stringify(frame)).toBeDefined();
      return { event, data: data!.slice("data: ".length) };
    });
}

const json = (frame: Frame) => JSON.parse(frame.data) as Record<string, any>;

const chat: Door = {
  path: "/v1/chat/completions",
  body: (model) => ({ model, stream: true, messages: [{ role: "user", content: "hi" }] }),
  text(sse) {
    const frames = sseFrames(sse);
    expect(frames.at(-1)!.data).toBe("[DONE]");
    const chunks = frames.slice(0, -1).map(json);
    expect(chunks.flatMap((c) => c.choices.map((choice: { finish_reason: string | null }) => choice.finish_reason)).filter(Boolean)).toEqual(["stop"]);
    return chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
  },
};

const messages: Door = {
  path: "/v1/messages",
  body: (model) => ({ model, stream: true, max_tokens: 100, messages: [{ role: "user", content: "hi" }] }),
  text(sse) {
    const frames = sseFrames(sse);
    expect(frames[0]!.event).toBe("message_start");
    expect(frames.at(-1)!.event).toBe("message_stop");
    for (const frame of frames) expect(json(frame).type).toBe(frame.event);
    return frames
      .filter((f) => f.event === "content_block_delta")
      .map(json)
      .map((d) => (d.delta.type === "text_delta" ? d.delta.text : ""))
      .join("");
  },
};

const responses: Door = {
  path: "/v1/responses",
  body: (model) => ({ model, stream: true, input: "hi" }),
  text(sse) {
    const frames = sseFrames(sse);
    expect(frames[0]!.event).toBe("response.created");
    expect(frames.at(-1)!.event).toBe("response.completed");
    const text = frames
      .filter((f) => f.event === "response.output_text.delta")
      .map((f) => json(f).delta as string)
      .join("");
    const completed = json(frames.at(-1)!).response as { output: { type: string; content?: { type: string; text: string }[] }[] };
    const message = completed.output.find((item) => item.type === "message");
    expect(message?.content?.map((c) => c.text).join("")).toBe(text);
    return text;
  },
};

export const DOORS: [string, Door][] = [
  ["/v1/chat/completions", chat],
  ["/v1/messages", messages],
  ["/v1/responses", responses],
];
