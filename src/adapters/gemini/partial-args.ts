/**
 * Function-call arguments streamed in pieces (Vertex AI's `streamFunctionCallArguments`): each
 * `partialArgs` entry sets the value at a JSON path (RFC 9535: `$.recipe.ingredients[0].name`);
 * a string may come in several entries for one path, each but the last with `willContinue`.
 */
import type { PartialArg } from "./wire.ts";

type Segment = string | number;

const SEGMENT = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/gy;

/** The path's segments, or undefined for a path this reader does not understand. */
export function parseJsonPath(path: string): Segment[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const segments: Segment[] = [];
  SEGMENT.lastIndex = 1;
  while (SEGMENT.lastIndex < path.length) {
    const at = SEGMENT.lastIndex;
    const match = SEGMENT.exec(path);
    if (!match || match.index !== at) return undefined;
    const [, name, index, single, double] = match;
    if (index !== undefined) segments.push(Number(index));
    else segments.push((name ?? single ?? double ?? "").replace(/\\(.)/g, "$1"));
  }
  return segments;
}

type Container = { [key: string]: unknown } | unknown[];

function containerFor(next: Segment): Container {
  return typeof next === "number" ? [] : {};
}

function setAt(root: { [key: string]: unknown }, segments: Segment[], value: unknown, append: boolean): void {
  let node: Container = root;
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    const record = node as { [key: string | number]: unknown };
    if (last) {
      const previous = record[segment];
      record[segment] = append && typeof previous === "string" && typeof value === "string" ? previous + value : value;
      return;
    }
    const existing = record[segment];
    const child = typeof existing === "object" && existing !== null ? (existing as Container) : containerFor(segments[i + 1]!);
    record[segment] = child;
    node = child;
  }
}

function valueOf(arg: PartialArg): unknown {
  if (arg.stringValue !== undefined) return arg.stringValue;
  if (arg.numberValue !== undefined) return arg.numberValue;
  if (arg.boolValue !== undefined) return arg.boolValue;
  if (arg.nullValue !== undefined) return null;
  return undefined;
}

export class PartialArguments {
  readonly value: { [key: string]: unknown } = {};
  /** The path whose string is still coming. */
  private continuing: string | undefined;
  /** Paths that could not be read (kept to report them). */
  readonly unreadable: string[] = [];

  apply(args: readonly PartialArg[] | undefined): void {
    for (const arg of args ?? []) {
      const path = arg.jsonPath ?? "";
      const segments = parseJsonPath(path);
      const value = valueOf(arg);
      if (segments === undefined || segments.length === 0) {
        this.unreadable.push(path);
        continue;
      }
      if (value !== undefined) setAt(this.value, segments, value, this.continuing === path);
      this.continuing = arg.willContinue ? path : undefined;
    }
  }
}
