/** Terminal output is kept to this many columns. */
export const TABLE_WIDTH = 100;

/** A row: its cells, and optional notes printed under it (indented, wrapped). */
export type TableRow = string[] | { cells: string[]; notes?: string[] };

/**
 * A plain aligned text table that fits `maxWidth` columns: the last column (an error, a detail)
 * wraps onto continuation lines aligned under it, or goes under the row when the other columns
 * leave it too little room; notes go under their row, wrapped too.
 */
export function renderTable(headers: string[], rows: TableRow[], maxWidth = TABLE_WIDTH): string {
  const all = rows.map((row) => (Array.isArray(row) ? { cells: row, notes: [] } : { cells: row.cells, notes: row.notes ?? [] }));
  const last = headers.length - 1;
  const widths = headers.map((h, i) => Math.max(h.length, ...all.map((r) => (r.cells[i] ?? "").length)));
  const lastStart = widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0);
  // Room left for the last column; below this it goes under its row instead.
  const room = maxWidth - lastStart;
  const lastFits = room >= 24;
  widths[last] = Math.min(widths[last]!, Math.max(room, headers[last]!.length));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  const out = [line(headers), line(widths.map((w) => "-".repeat(w)))];
  for (const { cells, notes } of all) {
    const lastCell = cells[last] ?? "";
    if (lastFits) {
      const [first = "", ...rest] = wrap(lastCell, room);
      out.push(line([...cells.slice(0, last), first]));
      for (const more of rest) out.push(`${" ".repeat(lastStart)}${more}`);
    } else {
      out.push(line([...cells.slice(0, last), ""]));
      if (lastCell !== "") notes.unshift(lastCell);
    }
    for (const note of notes) out.push(...wrap(note, maxWidth - 4).map((text, i) => `${i === 0 ? "  " : "    "}${text}`));
  }
  return out.join("\n");
}

/** Words into lines of at most `width` characters (a longer word is cut). */
export function wrap(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let current = "";
  for (let word of text.split(" ")) {
    while (word.length > width) {
      if (current !== "") lines.push(current);
      lines.push(word.slice(0, width));
      word = word.slice(width);
      current = "";
    }
    if (current === "") current = word;
    else if (current.length + 1 + word.length <= width) current += ` ${word}`;
    else {
      lines.push(current);
      current = word;
    }
  }
  if (current !== "") lines.push(current);
  return lines;
}
