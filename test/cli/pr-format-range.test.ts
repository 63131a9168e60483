/** The estimate's range in `greenline pr status`: between its p10 and p90, in UTC. */
import { describe, expect, it } from 'vitest';
import { formatRange } from '../../src/cli/pr-format.js';

describe('formatRange', () => {
  it.each<[string, { p10: string; p90: string } | null, string]>([
    ['no estimate', null, ''],
    [
      'a range that is the estimate itself says nothing more',
      { p10: '2026-01-31T14:32:00.000Z', p90: '2026-01-31T14:32:00.000Z' },
      '',
    ],
    [
      'a range within one minute says nothing more either',
      { p10: '2026-01-31T14:32:05.000Z', p90: '2026-01-31T14:32:50.000Z' },
      '',
    ],
    [
      'the same day',
      { p10: '2026-01-31T14:20:00.000Z', p90: '2026-01-31T15:10:00.000Z' },
      ', between 14:20 and 15:10 UTC',
    ],
    [
      'past midnight: the later day is named',
      { p10: '2026-01-31T23:20:00.000Z', p90: '2026-02-01T01:10:00.000Z' },
      ', between 23:20 and 2026-02-01 01:10 UTC',
    ],
  ])('%s', (_name, estimatedMergeRange, expected) => {
    expect(formatRange({ estimatedMergeRange })).toBe(expected);
  });
});
