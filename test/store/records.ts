/**
 * Records as the store keeps them, for store tests and benchmarks: an admitted PR's entry, a test run,
 * and the org `o1` with repo `r1` and its queues that most store tests start from.
 */
import type { Entry, TestRun } from '../../src/engine/types.js';
import type { Db } from '../../src/store/connect.js';
import { insertOrg } from '../../src/store/orgs.js';
import { insertQueue } from '../../src/store/queues.js';
import { insertRepo } from '../../src/store/repos.js';

/** PR `prNumber`'s entry, PENDING since 1000 (its head `sha-<n>`), with `over` on top. */
export function entryRecord(prNumber: number, over: Partial<Entry> = {}): Entry {
  return {
    id: `entry-${prNumber}`,
    prNumber,
    trip: 1,
    state: 'PENDING',
    stateChangedAt: 1000,
    submittedAt: 1000,
    admittedAt: 1000,
    headSha: `sha-${prNumber}`,
    baseBranch: 'main',
    title: `PR ${prNumber}`,
    author: 'me',
    mergeability: 'mergeable',
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    noBatch: false,
    forceEnqueued: false,
    impactedTargets: null,
    runId: null,
    verifiedByTestRun: null,
    lastReason: 'MERGE_ITEM_NOW_READY',
    timeline: [],
    ...over,
  };
}

/** Test run `id` of the main queue testing PR 1, in progress since 1000, with `over` on top. */
export function runRecord(id: string, over: Partial<TestRun> = {}): TestRun {
  return {
    id,
    queueType: 'main',
    prNumbers: [1],
    dependentPrs: [],
    baseSha: 'base',
    prs: [{ number: 1, headSha: 'sha-1' }],
    testBranch: `greenline-merge/pr-1/${id}`,
    testSha: null,
    status: 'in_progress',
    createdAt: 1000,
    finishedAt: null,
    failureReason: null,
    failureDetail: null,
    ...over,
  };
}

/** Org `o1` (acme), its git repo `r1` (acme/web) and a RUNNING queue per `[id, target branch]`. */
export async function seedRepo(db: Db, queues: [id: string, branch: string][] = [['q1', 'main']]): Promise<void> {
  await insertOrg(db, { id: 'o1', name: 'acme', created_at: 1 });
  await insertRepo(db, {
    id: 'r1',
    org_id: 'o1',
    host: 'github.com',
    owner: 'acme',
    name: 'web',
    forge: 'git',
    remote: '/srv/web.git',
    pr_ref_pattern: 'refs/pull/{n}/head',
    ci_command: 'make test',
    test_branch_prefix: 'greenline-merge',
    required_statuses: null,
    created_at: 1,
  });
  for (const [id, branch] of queues) {
    await insertQueue(db, {
      id,
      repo_id: 'r1',
      target_branch: branch,
      state: 'RUNNING',
      config: '{}',
      target_sha: null,
      internal: '{}',
      version: 0,
      created_at: 1,
      updated_at: 1,
    });
  }
}
