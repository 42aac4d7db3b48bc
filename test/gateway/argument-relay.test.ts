/**
 * ArgumentRelay: a streamed client tool call's argument text adds up to what a non-streamed
 * answer carries (argumentText of the finished call), sending valid text as it comes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseToolArguments } from "../../src/adapters/tool-arguments.ts";
import type { ToolCallBlock } from "../../src/core/index.ts";
import { ArgumentRelay, argumentText } from "../../src/gateway/shared/argument-relay.ts";

/** The finished call as an adapter builds it from the raw text. */
function finishedCall(raw: string): ToolCallBlock {
  const parsed = parseToolArguments(raw);
  return { type: "tool_call", id: "c1", name: "f", arguments: parsed.arguments, rawArguments: raw, ...(parsed.error ? { argumentsError: parsed.error } : {}) };
}

/** What the client receives: each delta's text (as sent, in order), then the finishing text. */
function relay(deltas: string[]): { sentLive: string[]; total: string; final: string } {
  const relayer = new ArgumentRelay();
  const sentLive = deltas.map((delta) => relayer.push(delta));
  const final = argumentText(finishedCall(deltas.join("")));
  const total = sentLive.join("") + relayer.finish(final);
  return { sentLive, total, final };
}

describe("ArgumentRelay", () => {
  it("sends valid JSON as it arrives, holding only a trailing comma and whitespace", () => {
    const { sentLive, total } = relay(['{"city": ', '"Rome", ', '"days": 3}']);
    expect(sentLive).toEqual(['{"city":', ' "Rome"', ', "days": 3}']);
    expect(total).toBe('{"city": "Rome", "days": 3}');
  });

  it.each([
    ["single quotes and a trailing comma", ["{'city':", "'Rome',}"], '{"city":"Rome"}'],
    ["a trailing comma before the brace", ['{"city": "Rome",', "}"], '{"city": "Rome"}'],
    ["a Python constant", ['{"all": Tr', "ue}"], '{"all": true}'],
    ["a missing comma between members", ['{"a": 1', ' "b": 2}'], '{"a": 1, "b": 2}'],
    ["an unclosed object", ['{"city": "Ro', "me"], '{"city": "Rome"}'],
    ["a code fence around it", ["```json\n", '{"a":1}', "\n```"], '\n{"a":1}\n'],
  ])("%s: the client ends up with the repaired text, as in a non-streamed answer", (_name, deltas, repaired) => {
    const { total, final } = relay(deltas);
    expect(final).toBe(repaired);
    expect(total).toBe(final);
    expect(JSON.parse(total)).toEqual(JSON.parse(repaired));
  });

  it.each([
    ["leading whitespace, then a Python constant", [" ", '{"a": ', "True}"]],
    ["a newline, then single quotes", ["\n{", "'a': 1}"]],
    ["a literal cut short by the token limit", ['{"a": tr']],
    ["a number cut short", ['{"n": 1', "2"]],
    ["a number where a key belongs", ["{1"]],
    ["an escape cut short", ['{"a": "x\\']],
    ["a missing comma, the next key's quote in its own delta", ['{"a": 1', ' "', 'b": 2}']],
    ["a missing comma, the next key split", ['{"a": 1', ' "b', '": 2}']],
    ["an inner quote left unescaped", ['{"q": "say "', 'hi""}']],
    ["an inner quote after an escaped backslash", ['{"q": "C:\\\\"', ' hi""}']],
    ["a unicode escape cut short", ['{"a": "\\u00', "e"]],
  ])("%s: the client ends up with exactly the non-streamed text", (_name, deltas) => {
    const { total, final } = relay(deltas);
    expect(total).toBe(final);
  });

  it("a flood of whitespace deltas (a model stuck until max_tokens) is held, then settled, without losing a byte", () => {
    const deltas = ['{"a": 1', ...Array.from({ length: 20_000 }, () => "        "), "}"];
    const { total, final } = relay(deltas);
    expect(total).toBe(final);
    expect(JSON.parse(total)).toEqual({ a: 1 });
  });

  it("empty arguments end as {} (JSON.parse('') fails in every client)", () => {
    expect(relay([]).total).toBe("{}");
    expect(relay(["", " "]).total).toBe("{}");
  });

  it("text that cannot be repaired reaches the client as the model sent it", () => {
    const { total } = relay(['{"a": [1, ', "2"]);
    expect(total).toBe(argumentText(finishedCall('{"a": [1, 2')));
    const broken = relay(["not json at all ", "{{{"]);
    expect(broken.total).toBe(broken.final);
  });

  it("a final text that does not continue what was sent: the client gets the model's own text", () => {
    const relayer = new ArgumentRelay();
    const sent = relayer.push('{"a": 1,') + relayer.push(' "b": 2');
    expect(sent + relayer.finish('{"x": 0}')).toBe('{"a": 1, "b": 2');
  });

  it("property: any JSON object in any deltas arrives exactly as the model's text", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer({ min: 0, max: 4 }), fc.array(fc.nat(), { maxLength: 8 }), (object, indent, cuts) => {
        const text = JSON.stringify(object, null, indent);
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const deltas = [0, ...points, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));
        const { total } = relay(deltas);
        expect(total).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("property: a JSON object broken the usual ways (quotes, trailing or missing commas, Python constants, cut short), in any deltas, arrives as the non-streamed text", () => {
    const broken = fc
      .tuple(fc.dictionary(fc.string({ unit: fc.constantFrom("a", "b", "c", "_", "1") , minLength: 1 }), fc.oneof(fc.boolean(), fc.integer(), fc.string({ unit: fc.constantFrom("x", "y", " ", "é") }), fc.constant(null))), fc.constantFrom("quotes", "comma", "no-comma", "python", "cut", "none"), fc.nat())
      .map(([object, how, at]) => {
        const text = JSON.stringify(object, null, 1);
        if (how === "quotes") return text.replaceAll('"', "'");
        if (how === "comma") return text.replace(/\n}$/, ",\n}");
        if (how === "no-comma") return text.replaceAll(",\n", "\n");
        if (how === "python") return text.replaceAll("true", "True").replaceAll("false", "False").replaceAll("null", "None");
        if (how === "cut") return text.slice(0, 1 + (at % text.length));
        return text;
      });
    fc.assert(
      fc.property(broken, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const deltas = [0, ...points, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));
        const { total, final } = relay(deltas);
        expect(total).toBe(final);
      }),
      { numRuns: 3000 },
    );
  });

  it("property: whatever the text, the client gets argumentText of the finished call", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom("{", "}", "[", "]", '"', "'", ",", ":", " ", "a", "1", "t", "\\", "\n") }), { maxLength: 10 }), (deltas) => {
        const { total, final } = relay(deltas);
        expect(total === final || total === deltas.join("")).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
