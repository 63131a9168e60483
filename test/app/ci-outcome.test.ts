import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../src/app/executor/ci-outcome.js';
import { resolveRequiredStatuses } from '../../src/app/repo-binding.js';
import { nextAttemptAt, RETRY_RULES, type RetryRule } from '../../src/app/executor/retry-policy.js';
import type { RepoRow } from '../../src/store/database.js';

const s = (context: string, state: string) => ({ context, state });

describe('outcomeOf', () => {
  it('waits until every required status succeeded', () => {
    expect(outcomeOf(['build', 'lint'], [s('build', 'success')])).toBeNull();
    expect(outcomeOf(['build', 'lint'], [s('build', 'success'), s('lint', 'pending')])).toBeNull();
    expect(outcomeOf(['build', 'lint'], [s('build', 'success'), s('lint', 'success')])).toEqual({ outcome: 'success' });
  });

  it('fails on the first required failure or error, even while others are pending', () => {
    expect(outcomeOf(['build', 'lint'], [s('lint', 'error')])).toEqual({
      outcome: 'failure',
      detail: 'required status "lint" reported error',
      failedStatuses: ['lint'],
    });
    expect(outcomeOf(['build'], [s('build', 'failure')])).toMatchObject({ outcome: 'failure' });
  });

  it('a cancelled required status is a cancellation unless another failed', () => {
    expect(outcomeOf(['build', 'lint'], [s('build', 'cancelled'), s('lint', 'pending')])).toEqual({
      outcome: 'cancelled',
      detail: 'required status "build" reported cancelled',
    });
    expect(outcomeOf(['build', 'lint'], [s('build', 'cancelled'), s('lint', 'failure')])).toMatchObject({
      outcome: 'failure',
    });
  });

  it('a skipped required status passes beside others that ran; all skipped fails, unless allSkippedPasses', () => {
    expect(outcomeOf(['build', 'test'], [s('build', 'skipped'), s('test', 'success')])).toEqual({ outcome: 'success' });
    expect(outcomeOf(['build', 'test'], [s('build', 'skipped'), s('test', 'pending')])).toBeNull();
    expect(outcomeOf(['build', 'test'], [s('build', 'skipped'), s('test', 'skipped')])).toEqual({
      outcome: 'failure',
      reason: 'REQUIRED_STATUSES_SKIPPED',
      detail: expect.stringMatching(
        /^every required check \(build, test\) was skipped on the test commit, so nothing was tested: /,
      ),
    });
    expect(
      outcomeOf(['build', 'test'], [s('build', 'skipped'), s('test', 'skipped')], { allSkippedPasses: true }),
    ).toEqual({ outcome: 'success' });
  });

  it('leaves quarantined statuses out of the outcome, naming them when they failed', () => {
    const quarantined = ['lint'];
    expect(outcomeOf(['build', 'lint'], [s('lint', 'failure')], { quarantined })).toBeNull();
    expect(outcomeOf(['build', 'lint'], [s('build', 'success'), s('lint', 'failure')], { quarantined })).toEqual({
      outcome: 'success',
      failedStatuses: ['lint'],
    });
    expect(outcomeOf(['build', 'lint'], [s('build', 'success')], { quarantined })).toEqual({ outcome: 'success' });
    expect(outcomeOf(['build', 'lint'], [s('build', 'failure'), s('lint', 'failure')], { quarantined })).toEqual({
      outcome: 'failure',
      detail: 'required status "build" reported failure',
      failedStatuses: ['build', 'lint'],
    });
  });

  it('every required status quarantined: all of them decide (at least one status keeps gating)', () => {
    expect(outcomeOf(['lint'], [s('lint', 'failure')], { quarantined: ['lint'] })).toMatchObject({
      outcome: 'failure',
      failedStatuses: ['lint'],
    });
  });

  it('ignores statuses that are not required', () => {
    expect(outcomeOf(['build'], [s('coverage', 'failure'), s('build', 'success')])).toEqual({ outcome: 'success' });
  });
});

describe('resolveRequiredStatuses', () => {
  const repo = (over: Partial<RepoRow>): RepoRow => ({
    id: 'r',
    org_id: 'o',
    host: 'h',
    owner: 'o',
    name: 'n',
    forge: 'git',
    remote: null,
    pr_ref_pattern: 'refs/pull/{n}/head',
    ci_command: null,
    test_branch_prefix: 'greenline-merge',
    required_statuses: null,
    created_at: 0,
    ...over,
  });

  it('prefers the queue override, then the repo list, then the built-in runner', () => {
    const withAll = repo({ required_statuses: '["build"]', ci_command: 'make' });
    expect(resolveRequiredStatuses(['e2e'], withAll)).toEqual({ statuses: ['e2e'], source: 'merge_instance' });
    expect(resolveRequiredStatuses(null, withAll)).toEqual({ statuses: ['build'], source: 'trunk_config' });
    expect(resolveRequiredStatuses(null, repo({ ci_command: 'make' }))).toEqual({
      statuses: ['greenline/ci'],
      source: 'trunk_config',
    });
    expect(resolveRequiredStatuses(null, repo({}))).toBeNull();
  });

  it('takes an empty override as the answer, no check required, rather than falling back', () => {
    const withAll = repo({ required_statuses: '["build"]', ci_command: 'make' });
    expect(resolveRequiredStatuses([], withAll)).toEqual({ statuses: [], source: 'merge_instance' });
    expect(resolveRequiredStatuses([], repo({}))).toEqual({ statuses: [], source: 'merge_instance' });
  });

  it('settles a run that requires nothing as passed at once', () => {
    expect(outcomeOf([], [])).toEqual({ outcome: 'success' });
  });
});

describe('retry policy', () => {
  const middle = () => 0.5;
  const lowest = () => 0;
  const highest = () => 1 - Number.EPSILON;

  it('backs off exponentially up to a cap, then gives up', () => {
    expect(nextAttemptAt('merge', 1, 0, middle)).toBe(2_000);
    expect(nextAttemptAt('merge', 2, 0, middle)).toBe(4_000);
    expect(nextAttemptAt('merge', 5, 0, middle)).toBe(10_000);
    expect(nextAttemptAt('merge', RETRY_RULES.merge.maxAttempts, 0, middle)).toBeNull();
    expect(nextAttemptAt('createTestBranch', 4, 0, middle)).toBeNull();
  });

  it('spreads each delay over [0.5, 1.5) of the backoff, from the random source', () => {
    expect(nextAttemptAt('merge', 1, 100, lowest)).toBe(100 + 1_000);
    expect(nextAttemptAt('merge', 1, 100, highest)).toBe(100 + 2_999);
    expect(nextAttemptAt('merge', 5, 0, lowest)).toBe(5_000);
    expect(nextAttemptAt('merge', 5, 0, highest)).toBe(14_999);
    expect(nextAttemptAt('createTestBranch', 3, 0, () => 0.25)).toBe(30_000);
    expect(nextAttemptAt('merge', RETRY_RULES.merge.maxAttempts, 0, lowest)).toBeNull();
  });

  it('keeps every rule and attempt within its bounds with the default random source', () => {
    for (const [kind, rule] of Object.entries(RETRY_RULES) as [keyof typeof RETRY_RULES, RetryRule][]) {
      for (let attempts = 1; attempts < rule.maxAttempts; attempts++) {
        const backoff = Math.min(rule.firstDelayMs * 2 ** (attempts - 1), rule.maxDelayMs);
        const delays = Array.from({ length: 50 }, () => nextAttemptAt(kind, attempts, 0)!);
        expect(Math.min(...delays)).toBeGreaterThanOrEqual(backoff / 2);
        expect(Math.max(...delays)).toBeLessThan(backoff * 1.5);
        expect(new Set(delays).size).toBeGreaterThan(1);
      }
    }
  });
});
