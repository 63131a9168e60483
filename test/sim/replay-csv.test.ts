/** The replay CSV: what it accepts, and a clear error naming the line for what it does not. */
import { describe, expect, it } from 'vitest';
import { parseReplayCsv, ReplayCsvError } from '../../src/sim/replay-csv.js';

describe('parseReplayCsv', () => {
  it('reads timestamps, CI minutes and outcomes; times count from the earliest arrival, rows sorted', () => {
    const prs = parseReplayCsv(
      [
        'arrival,ci_minutes,outcome',
        '2024-05-06T09:40:00Z,28,FAIL',
        '# a comment',
        '',
        '2024-05-06T09:12:00Z,31.5,pass',
        '2024-05-06T10:12:00Z,"30",success',
      ].join('\r\n'),
    );
    expect(prs).toEqual([
      { arrivalMinutes: 0, ciMinutes: 31.5, bad: false },
      { arrivalMinutes: 28, ciMinutes: 28, bad: true },
      { arrivalMinutes: 60, ciMinutes: 30, bad: false },
    ]);
  });

  it('reads minutes since the start, columns in any order, extra columns ignored', () => {
    const prs = parseReplayCsv(
      'pr,outcome,arrival,ci_minutes\n101,failure,5,10\n"Fix ""quoted"", title",passed,2.5,12\n',
    );
    expect(prs).toEqual([
      { arrivalMinutes: 0, ciMinutes: 12, bad: false },
      { arrivalMinutes: 2.5, ciMinutes: 10, bad: true },
    ]);
  });

  const errors: [string, string, RegExp][] = [
    ['empty file', '', /line 1: no header/],
    ['missing column', 'arrival,outcome\n0,pass', /line 1: .*missing ci_minutes/],
    ['no rows', 'arrival,ci_minutes,outcome\n\n', /no PRs after the header/],
    ['short row', 'arrival,ci_minutes,outcome\n0,30,pass\n1,30', /line 3: expected 3 fields/],
    [
      'bad timestamp',
      'arrival,ci_minutes,outcome\nyesterday,30,pass',
      /line 2: arrival must be an ISO 8601 timestamp or a number of minutes, got "yesterday"/,
    ],
    [
      'mixed arrival kinds',
      'arrival,ci_minutes,outcome\n0,30,pass\n2024-05-06T09:12:00Z,30,pass',
      /line 3: arrival is a timestamp, but earlier rows use minutes/,
    ],
    [
      'zero CI time',
      'arrival,ci_minutes,outcome\n0,0,pass',
      /line 2: ci_minutes must be a number of minutes > 0, got "0"/,
    ],
    ['CI time not a number', 'arrival,ci_minutes,outcome\n0,30,pass\n1,30m,pass', /line 3: ci_minutes .* got "30m"/],
    ['unknown outcome', 'arrival,ci_minutes,outcome\n0,30,flaky', /line 2: outcome must be pass or fail, got "flaky"/],
    ['unclosed quote', 'arrival,ci_minutes,outcome\n"0,30,pass', /line 2: a quoted field is not closed/],
  ];
  it.each(errors)('%s → an error naming the line', (_name, text, message) => {
    expect(() => parseReplayCsv(text, 'history.csv')).toThrow(ReplayCsvError);
    expect(() => parseReplayCsv(text, 'history.csv')).toThrow(message);
    expect(() => parseReplayCsv(text, 'history.csv')).toThrow(/^history\.csv line \d+: /);
  });
});
