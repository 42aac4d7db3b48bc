/**
 * `{ ...base, ...extra }` as a new object, for the request path. On Node 20 (V8 11) an object
 * literal that starts with a spread of a non-empty object is slow to extend: each property added
 * after the spread (by the literal, another spread or an assignment) costs about 1 µs, a hundred
 * times the usual (measured: `{ ...o, d: 1 }` 0.99 µs, `Object.assign({}, o, { d: 1 })` 0.14 µs;
 * Node 22 has no such cost). The result has the same keys, in the same order, with the same values.
 */
export function extend<T extends object, U extends object>(base: T, extra: U): Omit<T, keyof U> & U {
  return Object.assign({}, base, extra) as Omit<T, keyof U> & U;
}
