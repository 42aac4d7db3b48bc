/**
 * `items.flatMap(f)`, one level deep as the built-in, as a plain loop: for the one to three items
 * a message or a turn has, Node 20's `Array.prototype.flatMap` takes 0.3–0.6 µs a call and this
 * 0.04 µs (Node 22: 0.23 against 0.04), and a request's conversions make dozens of such calls.
 */
export function flatMapped<T, U>(items: readonly T[], f: (item: T, index: number) => U | readonly U[]): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    const value = f(items[i]!, i);
    if (Array.isArray(value)) for (const item of value as readonly U[]) out.push(item);
    else out.push(value as U);
  }
  return out;
}
