/** The sliding hour over one PR's recorded transitions (hour-window.ts), case by case. */
import { describe, expect, it } from 'vitest';
import type { QueueType } from '../../src/engine/types.js';
import { walkPrHistory } from '../../src/metrics/hour-window.js';
import type { MetricsTransition } from '../../src/store/metrics-transitions.js';

const M = 60_000;
type Row = [from: string | null, to: string, reason: string, minute: number, bisection?: boolean];
const rows = (list: Row[]): MetricsTransition[] =>
  list.map(([from, to, reason, minute, bisection = false]) => ({
    queueId: 'q',
    prNumber: 1,
    from,
    to,
    reason,
    at: minute * M,
    bisection,
  }));

function walk(list: Row[], afterMinute: number) {
  const out: string[] = [];
  walkPrHistory(rows(list), afterMinute * M, {
    conclusion: (type: QueueType, c, s) => out.push(`${c}@${type} in queue ${s}`),
    restart: (type) => out.push(`restart@${type}`),
    wait: (type, s) => out.push(`wait@${type} ${s}`),
    test: (type, s) => out.push(`test@${type} ${s}`),
  });
  return out;
}

const submitted: Row[] = [
  [null, 'NOT_READY', 'API_REQUESTED', 0],
  ['NOT_READY', 'PENDING', 'MERGE_ITEM_NOW_READY', 10],
];

describe('walkPrHistory', () => {
  it('measures what ended in the window from where it began before it', () => {
    expect(
      walk(
        [
          ...submitted,
          ['PENDING', 'TESTING', 'TEST_RUN_STARTED', 30],
          ['TESTING', 'TESTS_PASSED', 'TEST_RUN_PASSED', 100],
          ['TESTS_PASSED', 'MERGED', 'MERGE_GRAPH_MERGE', 101],
        ],
        60,
      ),
    ).toEqual(['test@main 4200', 'merged@main in queue 5460']);
  });

  it('leaves out what ended exactly at the start of the window or before', () => {
    expect(walk([...submitted, ['PENDING', 'TESTING', 'TEST_RUN_STARTED', 30]], 30)).toEqual([]);
    expect(walk([...submitted, ['PENDING', 'TESTING', 'TEST_RUN_STARTED', 30]], 29)).toEqual(['wait@main 1200']);
  });

  it('counts a restart and measures the next wait from it', () => {
    expect(
      walk(
        [
          ...submitted,
          ['PENDING', 'TESTING', 'TEST_RUN_STARTED', 12],
          ['TESTING', 'PENDING', 'TESTS_RESTARTED_BY_API_REQUEST', 20],
          ['PENDING', 'TESTING', 'TEST_RUN_STARTED', 23],
        ],
        0,
      ),
    ).toEqual(['wait@main 120', 'test@main 480', 'restart@main', 'wait@main 180']);
  });

  it('gives no time in queue to a trip that never left NOT_READY, and starts a resubmission afresh', () => {
    expect(
      walk(
        [
          [null, 'NOT_READY', 'API_REQUESTED', 0],
          ['NOT_READY', 'CANCELLED', 'USER_REQUESTED', 5],
        ],
        0,
      ),
    ).toEqual(['cancelled@main in queue null']);
    expect(
      walk(
        [
          ...submitted,
          ['PENDING', 'CANCELLED', 'USER_REQUESTED', 20],
          ['CANCELLED', 'NOT_READY', 'API_REQUESTED', 30],
          ['NOT_READY', 'PENDING', 'MERGE_ITEM_NOW_READY', 40],
          ['PENDING', 'MERGED', 'MERGE_GRAPH_DIRECT_MERGE', 41],
        ],
        25,
      ),
    ).toEqual(['merged@main in queue 60']);
  });

  it('puts bisection runs and the PRs that leave from a bisection under bisection, and cleared PRs back under main', () => {
    const batch: Row[] = [
      ...submitted,
      ['PENDING', 'TESTING', 'TEST_RUN_STARTED', 11],
      ['TESTING', 'PENDING_FAILURE', 'TEST_RUN_REQUIRED_STATUS_FAILED', 20],
      ['PENDING_FAILURE', 'PENDING', 'BISECTION_REQUIRED', 20],
      ['PENDING', 'TESTING', 'TEST_RUN_STARTED', 21, true],
    ];
    expect(walk([...batch, ['TESTING', 'FAILED', 'TEST_RUN_REQUIRED_STATUS_FAILED', 30, true]], 15)).toEqual([
      'test@main 540',
      'wait@bisection 60',
      'test@bisection 540',
      'failed@bisection in queue 1200',
    ]);
    expect(
      walk(
        [
          ...batch,
          ['TESTING', 'PENDING', 'BISECTION_TEST_RUN_PASSED', 30, true],
          ['PENDING', 'CANCELLED', 'USER_REQUESTED', 31, true],
        ],
        25,
      ),
    ).toEqual(['test@bisection 540', 'restart@bisection', 'cancelled@main in queue 1260']);
    // Cancelled while waiting for its bisection part: it left from the bisection.
    expect(walk([...batch.slice(0, 5), ['PENDING', 'CANCELLED', 'USER_REQUESTED', 22]], 21)).toEqual([
      'cancelled@bisection in queue 720',
    ]);
  });
});
