import { describe, expect, it } from 'vitest';
import type { QueueEventPayload } from '../../src/engine/types.js';
import { eventBody } from '../../src/webhooks/events.js';

const started: QueueEventPayload = {
  type: 'test_run.started',
  at: Date.UTC(2026, 0, 5, 9),
  prNumbers: [4, 5],
  prNumbersInBatch: [4, 5],
  runId: 'r1',
  testBranch: 'greenline-merge/pr-4-5/r1',
  testBranchSha: 't'.repeat(40),
  reason: null,
  batched: true,
  isBisection: false,
  changes: {
    baseSha: 'b'.repeat(40),
    files: ['api/a.ts', 'web/b.css'],
    prs: [
      { number: 4, files: ['api/a.ts'] },
      { number: 5, files: ['web/b.css'] },
    ],
  },
};

const ctx = {
  repo: { forge: 'github' as const, host: 'github.com', owner: 'acme', name: 'web' },
  targetBranch: 'main',
  author: '',
};

describe('test_run.started', () => {
  it("carries the base of the run, the paths changed from it, and each tested PR's own paths", () => {
    expect(eventBody(started, ctx)).toEqual({
      type: 'test_run.started',
      action: 'started',
      status: 'started',
      repository: { host: 'github.com', owner: 'acme', name: 'web' },
      target_branch: 'main',
      timestamp: '2026-01-05T09:00:00.000Z',
      test_run_id: 'r1',
      test_branch: 'greenline-merge/pr-4-5/r1',
      test_branch_sha: 't'.repeat(40),
      pr_numbers: [4, 5],
      is_bisection: false,
      base_sha: 'b'.repeat(40),
      changed_files: ['api/a.ts', 'web/b.css'],
      pull_requests: [
        { pr_number: 4, changed_files: ['api/a.ts'] },
        { pr_number: 5, changed_files: ['web/b.css'] },
      ],
    });
  });
});
