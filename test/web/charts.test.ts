/**
 * The history charts in Node (web/charts.js): the hours a chart draws, what its title says of them and
 * the ticks of its axis. The charts as a person sees them are test/dashboard/history.browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { QueueHistory } from '../../src/client/index.js';
import { axisTicks, rangeLabel, shownHours } from '../../web/charts.js';

type Hour = QueueHistory['hours'][number];
const HOUR = 3_600_000;
const NOW = Math.floor(Date.parse('2026-01-31T12:34:00Z') / HOUR) * HOUR;

/** A week of hours, oldest first, with one merge `ago` hours before the current one (none when null). */
const week = (ago: number | null): Hour[] =>
  Array.from({ length: 168 }, (_, i) => ({
    start: new Date(NOW - (167 - i) * HOUR).toISOString(),
    merged: 167 - i === ago ? 1 : 0,
    failed: 0,
    cancelled: 0,
    ciRuns: 0,
    timeInQueueP50Seconds: null,
    timeInQueueP95Seconds: null,
    ciRunsPerMerge: null,
  }));

describe('the range a history chart draws', () => {
  it('starts at the first hour with a conclusion or a CI run, showing at least the last 6 hours', () => {
    expect([null, 0, 5, 10].map((ago) => rangeLabel(shownHours(week(ago))))).toEqual([
      'the last 6 hours',
      'the last 6 hours',
      'the last 6 hours',
      'the last 11 hours',
    ]);
    const hours = week(10);
    expect(shownHours(hours)[0]).toBe(hours[157]);
    const ciOnly = week(null).map((h, i) => (i === 160 ? { ...h, ciRuns: 2 } : h));
    expect(shownHours(ciOnly)).toHaveLength(8);
  });

  it('names the first hour drawn, with its day, when the range is over a day', () => {
    const hours = shownHours(week(30));
    expect(hours).toHaveLength(31);
    const first = new Date(hours[0]!.start);
    const day = first.toLocaleDateString('en', { weekday: 'short' });
    expect(rangeLabel(hours)).toBe(`since ${day} ${String(first.getHours()).padStart(2, '0')}:00 (31 hours)`);
    expect(rangeLabel(hours.slice(-1))).toBe('the last 1 hour');
  });
});

describe('the ticks of a chart axis', () => {
  it('are whole numbers a round step apart, from 0 to at least the largest value, at most four steps', () => {
    expect(axisTicks(2.5)).toEqual([0, 1, 2, 3]);
    expect(axisTicks(1.3)).toEqual([0, 1, 2]);
    expect(axisTicks(0)).toEqual([0, 1]);
    expect(axisTicks(1)).toEqual([0, 1]);
    expect(axisTicks(4)).toEqual([0, 1, 2, 3, 4]);
    expect(axisTicks(9)).toEqual([0, 5, 10]);
    expect(axisTicks(100)).toEqual([0, 50, 100]);
    expect(axisTicks(119)).toEqual([0, 50, 100, 150]);
    expect(axisTicks(3000)).toEqual([0, 1000, 2000, 3000]);
  });
});
