/** Utf8Decoder decodes as TextDecoder's streaming mode does, for every way a text is cut into chunks. */
import { describe, expect, it } from "vitest";
import { Utf8Decoder, utf8Text } from "../../src/core/utf8-decoder.ts";

/** TextDecoder's streaming decode: the reference. */
function reference(chunks: Uint8Array[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("") + decoder.decode();
}

function decoded(chunks: Uint8Array[]): string {
  const decoder = new Utf8Decoder();
  return chunks.map((chunk) => decoder.write(chunk)).join("") + decoder.end();
}

/** Every cut of `bytes` into two chunks, and into one-byte chunks. */
function cuts(bytes: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [[bytes], Array.from(bytes, (byte) => Uint8Array.of(byte))];
  for (let i = 0; i <= bytes.length; i++) all.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return all;
}

const texts = {
  ascii: 'data: {"choices":[{"delta":{"content":"hello"}}]}\n\n',
  "two, three and four bytes": "data: é ß — 中文 😀 🇫🇷\n\n",
  "a byte order mark first": "\ufeffdata: x\n\n",
  "a byte order mark later (kept)": "data: \ufeffx\n\n",
};

describe("Utf8Decoder", () => {
  for (const [name, text] of Object.entries(texts)) {
    it(`decodes ${name} as TextDecoder does, however it is cut`, () => {
      for (const chunks of cuts(new TextEncoder().encode(text))) expect(decoded(chunks)).toBe(reference(chunks));
    });
  }

  const invalid = {
    "a lone continuation byte": [0x61, 0x80, 0x62],
    "a sequence cut at the end": [0x61, 0xe4, 0xb8],
    "a lead byte followed by ASCII": [0xe4, 0x61, 0x62],
    "bytes that are never UTF-8": [0x61, 0xff, 0xfe, 0x62],
  };
  for (const [name, bytes] of Object.entries(invalid)) {
    it(`makes U+FFFD of ${name} as TextDecoder does, however it is cut`, () => {
      for (const chunks of cuts(Uint8Array.from(bytes))) expect(decoded(chunks)).toBe(reference(chunks));
    });
  }

  it("takes Buffers and plain Uint8Arrays alike", () => {
    const decoder = new Utf8Decoder();
    expect(decoder.write(Buffer.from("a"))).toBe("a");
    expect(decoder.write(new TextEncoder().encode("é"))).toBe("é");
    expect(decoder.end()).toBe("");
  });

  it("utf8Text drops a leading byte order mark from a body, as fetch does", () => {
    expect(utf8Text(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe("{}");
    expect(utf8Text(Buffer.from("{}"))).toBe("{}");
  });
});
