/** How client commands print: aligned tables and key/value blocks for people, JSON for scripts. */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Columns padded to their widest cell, separated by two spaces; the last column is not padded. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `Key:  value` lines, values aligned. */
export function formatFields(fields: [string, string][]): string {
  const width = Math.max(...fields.map(([k]) => k.length)) + 1;
  return fields.map(([k, v]) => `${`${k}:`.padEnd(width)}  ${v}`).join('\n');
}

export const yesNo = (b: boolean): string => (b ? 'yes' : 'no');

/** An epoch-ms time as ISO-8601, or `-` for none. */
export const isoOrDash = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());
