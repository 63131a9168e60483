/** Test branch names: the pattern the takeover's reconcile uses matches exactly the names the engine gives. */
import { describe, expect, it } from 'vitest';
import { testBranchName, testBranchPattern } from '../../src/engine/index.js';

describe('test branch names', () => {
  it('match the pattern of their prefix, whatever the PRs and the run id', () => {
    for (const prefix of ['greenline-merge', 'ci/merge.queue+x']) {
      for (const prs of [[1], [7, 12, 300]]) {
        expect(testBranchName(prefix, prs, 'cf781451-0158-4288-92e9-91720d822617')).toMatch(testBranchPattern(prefix));
      }
    }
  });

  it('leave out other branches: another prefix, no PR number, nested names', () => {
    const pattern = testBranchPattern('greenline-merge');
    for (const name of [
      'main',
      'greenline-merge-temp/pr-1/abc',
      'greenline-merge/pr-/abc',
      'greenline-merge/pr-1/abc/def',
      'xgreenline-merge/pr-1/abc',
    ]) {
      expect(name).not.toMatch(pattern);
    }
    expect('ci/mergeXqueue+x/pr-1/abc').not.toMatch(testBranchPattern('ci/merge.queue+x')); // the prefix is literal
  });
});
