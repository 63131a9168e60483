/**
 * The replay format: a team's merge history as CSV, one PR per line, to try queue settings on it.
 *
 *   arrival,ci_minutes,outcome
 *   2024-05-06T09:12:00Z,31.5,pass
 *   2024-05-06T09:40:00Z,28,fail
 *
 * - `arrival`: when the PR was submitted: an ISO 8601 timestamp, or minutes since the start (a number).
 *   All rows use the same kind. Rows need not be sorted; times count from the earliest.
 * - `ci_minutes`: how long its CI took (> 0).
 * - `outcome`: `pass` or `fail` (also `success`/`failure`, any case). A failing PR's code is bad: every
 *   run that includes it fails.
 * The header names the columns, in any order; other columns are ignored. Blank lines and lines
 * starting with `#` are skipped. Fields may be double-quoted. A malformed line is an error naming it.
 */
import { MINUTE_MS } from '../lib/time.js';

export interface ReplayPr {
  /** Minutes after the earliest arrival. */
  arrivalMinutes: number;
  ciMinutes: number;
  bad: boolean;
}

export class ReplayCsvError extends Error {
  override name = 'ReplayCsvError';
  constructor(
    readonly line: number,
    message: string,
    source = 'replay file',
  ) {
    super(`${source} line ${line}: ${message}`);
  }
}

const COLUMNS = ['arrival', 'ci_minutes', 'outcome'] as const;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const OUTCOMES: Record<string, boolean> = {
  pass: false,
  passed: false,
  success: false,
  fail: true,
  failed: true,
  failure: true,
};

/** Parses replay CSV text; `source` names the file in error messages. */
export function parseReplayCsv(text: string, source = 'replay file'): ReplayPr[] {
  const fail = (line: number, message: string): never => {
    throw new ReplayCsvError(line, message, source);
  };
  const lines = text.split(/\r?\n/);
  let header: Map<string, number> | null = null;
  let kind: 'timestamp' | 'minutes' | null = null;
  const rows: { at: number; ciMinutes: number; bad: boolean }[] = [];
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) return;
    const fields = splitCsvLine(raw, line, fail).map((f) => f.trim());
    if (!header) {
      header = new Map(fields.map((name, col) => [name.toLowerCase(), col]));
      const missing = COLUMNS.filter((c) => !header!.has(c));
      if (missing.length > 0)
        fail(line, `the header must name the columns ${COLUMNS.join(', ')}; missing ${missing.join(', ')}`);
      return;
    }
    if (fields.length < header.size) fail(line, `expected ${header.size} fields like the header, got ${fields.length}`);
    const field = (c: (typeof COLUMNS)[number]): string => fields[header!.get(c)!];
    const arrival = field('arrival');
    const asNumber = NUMBER.test(arrival) ? Number(arrival) : NaN;
    const rowKind = Number.isFinite(asNumber) ? 'minutes' : 'timestamp';
    const at = rowKind === 'minutes' ? asNumber * MINUTE_MS : Date.parse(arrival);
    if (!Number.isFinite(at))
      fail(line, `arrival must be an ISO 8601 timestamp or a number of minutes, got "${arrival}"`);
    if (kind !== null && rowKind !== kind)
      fail(
        line,
        `arrival is ${rowKind === 'minutes' ? 'a number of minutes' : 'a timestamp'}, but earlier rows use ${kind === 'minutes' ? 'minutes' : 'timestamps'}`,
      );
    kind = rowKind;
    const ci = field('ci_minutes');
    const ciMinutes = NUMBER.test(ci) ? Number(ci) : NaN;
    if (!(ciMinutes > 0)) fail(line, `ci_minutes must be a number of minutes > 0, got "${ci}"`);
    const outcome = field('outcome').toLowerCase();
    if (!(outcome in OUTCOMES)) fail(line, `outcome must be pass or fail, got "${field('outcome')}"`);
    rows.push({ at, ciMinutes, bad: OUTCOMES[outcome] });
  });
  if (!header) throw new ReplayCsvError(1, `no header; the first line must be ${COLUMNS.join(',')}`, source);
  if (rows.length === 0) throw new ReplayCsvError(lines.length, 'no PRs after the header', source);
  const start = rows.reduce((min, r) => Math.min(min, r.at), Infinity);
  return rows
    .map((r) => ({ arrivalMinutes: (r.at - start) / MINUTE_MS, ciMinutes: r.ciMinutes, bad: r.bad }))
    .sort((a, b) => a.arrivalMinutes - b.arrivalMinutes);
}

/** Splits one CSV line; double-quoted fields may hold commas and doubled quotes. */
function splitCsvLine(raw: string, line: number, fail: (line: number, message: string) => never): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (raw[i] === '"') {
      i++;
      for (;;) {
        if (i >= raw.length) fail(line, 'a quoted field is not closed');
        if (raw[i] === '"' && raw[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        if (raw[i] === '"') {
          i++;
          break;
        }
        field += raw[i++];
      }
      if (i < raw.length && raw[i] !== ',') fail(line, `unexpected text after a quoted field at column ${i + 1}`);
    } else {
      const comma = raw.indexOf(',', i);
      field = raw.slice(i, comma < 0 ? raw.length : comma);
      i = comma < 0 ? raw.length : comma;
    }
    out.push(field);
    if (i >= raw.length) return out;
    i++; // the comma
  }
}
