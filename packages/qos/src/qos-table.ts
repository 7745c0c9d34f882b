/**
 * Renders a table as Dubbo's QoS `TTable` does: outer and inner borders, a `+---+` rule above, between and below
 * every row, each column as wide as its longest cell, text centred with the odd space on the left, no padding.
 *
 * @example
 * ```ts
 * renderTable(['Consumer Service Name', 'NUM'], []);
 * // +---------------------+---+
 * // |Consumer Service Name|NUM|
 * // +---------------------+---+
 * ```
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const rule = `+${widths.map((width) => '-'.repeat(width)).join('+')}+\n`;
  const line = (cells: readonly string[]) => `|${widths.map((width, column) => centre(cells[column] ?? '', width)).join('|')}|\n`;
  let out = rule + line(headers) + rule;
  for (const row of rows) out += line(row) + rule;
  return out;
}

function centre(text: string, width: number): string {
  const pad = width - text.length;
  const right = Math.floor(pad / 2);
  return `${' '.repeat(pad - right)}${text}${' '.repeat(right)}`;
}
