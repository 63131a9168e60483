/** What a test run changed, on the wires: v1's testing details and getTestRunChanges, v2's verification run. */
import { describe, expect, it } from 'vitest';
import type { TestRunView } from '../../src/app/read-models/test-run-details.js';
import type { TestRun } from '../../src/engine/types.js';
import { testingDetails, testRunChanges } from '../../src/api/v1/wire.js';
import { verificationRunOut } from '../../src/api/v2/wire.js';

const site = { forge: 'github' as const, host: 'github.com', owner: 'acme', name: 'web' };

const run: TestRun = {
  id: 'r2',
  queueType: 'main',
  prNumbers: [2, 3],
  dependentPrs: [1],
  baseSha: 'a'.repeat(40),
  prs: [
    { number: 1, headSha: 'h1' },
    { number: 2, headSha: 'h2' },
    { number: 3, headSha: 'h3' },
  ],
  testBranch: 'greenline-merge/pr-2-3/r2',
  testSha: 't'.repeat(40),
  status: 'in_progress',
  createdAt: Date.UTC(2026, 0, 5, 9),
  finishedAt: null,
  failureReason: null,
  failureDetail: null,
  changes: {
    baseSha: 'b'.repeat(40),
    files: ['api/x.go', 'web/a.css'],
    prs: [
      { number: 2, files: ['web/a.css'] },
      { number: 3, files: ['api/x.go'] },
    ],
  },
};

const view = (r: TestRun): TestRunView => ({
  run: r,
  site,
  requiredStatuses: ['ci'],
  requiredStatusesSource: 'merge_instance',
  statuses: [],
  testedPullRequests: [
    { prNumber: 2, title: 'Two' },
    { prNumber: 3, title: 'Three' },
  ],
  impactedTargets: null,
  impactedTargetsForTestedPrs: null,
});

const { changes: _unknown, ...runWithoutChanges } = run;

describe('test run changes on the wires', () => {
  it("v1 testing details: the base, the changed files, and each tested PR's own", () => {
    const out = testingDetails(view(run));
    expect(out).toMatchObject({ baseSha: 'b'.repeat(40), changedFiles: ['api/x.go', 'web/a.css'] });
    expect(out.testedPullRequests.map((p) => [p.prNumber, p.changedFiles])).toEqual([
      [2, ['web/a.css']],
      [3, ['api/x.go']],
    ]);
    const unknown = testingDetails(view(runWithoutChanges));
    expect(unknown).toMatchObject({ baseSha: null, changedFiles: null });
    expect(unknown.testedPullRequests.map((p) => 'changedFiles' in p)).toEqual([false, false]);
  });

  it('v1 getTestRunChanges: nulls when not known, never an empty list', () => {
    expect(testRunChanges(run)).toEqual({
      testRunId: 'r2',
      testBranchSha: 't'.repeat(40),
      baseSha: 'b'.repeat(40),
      changedFiles: ['api/x.go', 'web/a.css'],
      pullRequests: [
        { prNumber: 2, changedFiles: ['web/a.css'] },
        { prNumber: 3, changedFiles: ['api/x.go'] },
      ],
    });
    expect(testRunChanges(runWithoutChanges)).toMatchObject({ baseSha: null, changedFiles: null, pullRequests: null });
  });

  it("v2 verification run: baseSha, changedFiles and each tested PR's changedFiles, only when known", () => {
    const ids = new Map([
      [1, 'pr1'],
      [2, 'pr2'],
      [3, 'pr3'],
    ]);
    const titles = new Map([
      [2, 'Two'],
      [3, 'Three'],
    ]);
    const repo = { ...site, id: 'repo', createdAt: 0 };
    const out = verificationRunOut(run, repo, ids, titles, view(run)) as Record<string, unknown>;
    expect(out).toMatchObject({ baseSha: 'b'.repeat(40), changedFiles: ['api/x.go', 'web/a.css'] });
    expect((out.testedPullRequests as { changedFiles?: string[] }[]).map((p) => p.changedFiles)).toEqual([
      ['web/a.css'],
      ['api/x.go'],
    ]);
    expect((out.dependentPullRequests as object[])[0]).not.toHaveProperty('changedFiles');
    const unknown = verificationRunOut(runWithoutChanges, repo, ids, titles) as Record<string, unknown>;
    expect(unknown).not.toHaveProperty('baseSha');
    expect(unknown).not.toHaveProperty('changedFiles');
  });
});
