/**
 * How many characters at the end of `text` could be the start of `tag`: those are held back
 * while streaming until the next delta decides. Everything before them can go out at once.
 */
export function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}
