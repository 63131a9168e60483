/** The estimate in words, as the CLI and the forge's comments and checks say it. */
import { describe, expect, it } from 'vitest';
import { estimateInWords } from '../../src/lib/estimate-words.js';

const at = (iso: string): number => Date.parse(iso);

describe('estimateInWords', () => {
  it.each<[string, string, { p10: string; p90: string } | null, string]>([
    ['no range: the estimate alone', '2026-01-31T14:32:00Z', null, '2026-01-31 14:32 UTC'],
    [
      'a range within one minute says nothing more',
      '2026-01-31T14:32:20Z',
      { p10: '2026-01-31T14:32:05Z', p90: '2026-01-31T14:32:50Z' },
      '2026-01-31 14:32 UTC',
    ],
    [
      'the same day: the day once',
      '2026-01-31T14:40:00Z',
      { p10: '2026-01-31T14:10:00Z', p90: '2026-01-31T15:20:00Z' },
      'between 2026-01-31 14:10 and 15:20 UTC, most likely 14:40',
    ],
    [
      'past midnight: each change of day is named',
      '2026-01-31T23:50:00Z',
      { p10: '2026-01-31T23:20:00Z', p90: '2026-02-01T01:10:00Z' },
      'between 2026-01-31 23:20 and 2026-02-01 01:10 UTC, most likely 2026-01-31 23:50',
    ],
  ])('%s', (_name, estimate, range, expected) => {
    const r = range && { p10: at(range.p10), p90: at(range.p90) };
    expect(estimateInWords({ at: at(estimate), range: r })).toBe(expected);
  });
});
