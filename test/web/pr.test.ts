/**
 * The pull request page's pure module in Node (web/pr/words.js): why a PR has no test run, the runs its
 * timeline names, why a run never reached CI, the priorities offered. What a person sees on the page is
 * test/dashboard/pr.browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { SubmittedPullRequest } from '../../src/client/index.js';
import { short } from '../../web/links.js';
import { noRunsText, priorityChoices, runIdsOf, stackLayers, whyNoCi } from '../../web/pr/words.js';

type TimelineItem = NonNullable<SubmittedPullRequest['timeline']>[number];

const AT = '2026-01-31T12:00:00.000Z';
/** A timeline item: `reason` into `toState`, in test run `testRunId`. */
const item = (toState: string, reason: string, testRunId: string | null, detail?: string): TimelineItem => ({
  at: AT,
  fromState: null,
  toState,
  reason,
  message: `${reason} happened.`,
  testRunId,
  detail: detail ?? null,
});
/** The fields of a PR noRunsText reads. */
const prOf = (fields: Pick<SubmittedPullRequest, 'isCurrentlySubmittedToQueue' | 'waitingOn'>) =>
  ({ reason: { code: 'X', message: 'Pending: waits for its turn.', at: AT }, ...fields }) as SubmittedPullRequest;

describe('the pull request page in words', () => {
  it('says why a PR has no test run: what it waits on, or that it left the queue before one started', () => {
    expect(
      noRunsText(
        prOf({ isCurrentlySubmittedToQueue: true, waitingOn: { code: 'PRS_AHEAD', message: '2 PRs ahead.' } }),
      ),
    ).toBe('No test run yet. Pending: waits for its turn. 2 PRs ahead.');
    // "Not ready" only repeats the reason.
    expect(
      noRunsText(prOf({ isCurrentlySubmittedToQueue: true, waitingOn: { code: 'NOT_READY', message: 'Not ready.' } })),
    ).toBe('No test run yet. Pending: waits for its turn.');
    expect(noRunsText(prOf({ isCurrentlySubmittedToQueue: false, waitingOn: null }))).toBe(
      'No test run: it left the queue before one started. Pending: waits for its turn.',
    );
  });

  it('lists the test runs the timeline names, each once, in its order', () => {
    const timeline = [
      item('FAILED', 'A', 'r2'),
      item('TESTING', 'B', 'r2'),
      item('PENDING', 'C', null),
      item('TESTING', 'D', 'r1'),
    ];
    expect(runIdsOf(timeline)).toEqual(['r2', 'r1']);
    expect(runIdsOf([])).toEqual([]);
  });

  it("finds why a run never reached CI: the item with a detail or a failed start, else the run's first", () => {
    const conflict = item('FAILED', 'MERGE_CONFLICT', 'r1', 'a.txt');
    const failedStart = item('FAILED', 'START_TEST_RUN_FAILED', 'r1');
    const plain = item('PENDING', 'TEST_RUN_CANCELLED', 'r1');
    expect(whyNoCi([plain, conflict])).toBe(conflict);
    expect(whyNoCi([plain, failedStart])).toBe(failedStart);
    expect(whyNoCi([plain])).toBe(plain);
    expect(whyNoCi([])).toBeUndefined();
  });

  it("offers the named priorities, and the PR's own when it has another", () => {
    expect(priorityChoices('medium')).toEqual(['urgent', 'high', 'medium', 'low']);
    expect(priorityChoices('p7')).toEqual(['urgent', 'high', 'medium', 'low', 'p7']);
    expect([short('0123456789abcdef'), short(null)]).toEqual(['01234567', '–']);
  });
});

describe("the pull request page's stack", () => {
  it('lists the layers bottom first, marking the PR itself; none for a PR in no stack', () => {
    expect(stackLayers({ prNumber: 3, stack: [2, 3, 4] })).toEqual([
      { number: 2, self: false },
      { number: 3, self: true },
      { number: 4, self: false },
    ]);
    expect(stackLayers({ prNumber: 1, stack: [] })).toEqual([]);
  });
});
