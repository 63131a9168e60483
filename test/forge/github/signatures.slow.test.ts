/**
 * "Require signed commits" on GitHub (the FAKE GitHub API, as GitHub documents it): a PR GitHub
 * blocks because a commit of it is not verified waits NOT_READY with that reason — the rule, the
 * commits and how to sign them — instead of sitting blocked in silence; once its commits are
 * verified it is tested and merged. A queue that merges with rebase, whose commits GitHub cannot
 * sign, merges nothing and says which rule blocks and what to change.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeRule } from './fake-github-api.js';
import { bindingFor, createGitHubHarness, type GitHubHarness, makeForge } from './github-harness.js';
import { checkRunCompleted } from './webhook-examples.js';

let h: GitHubHarness;
let base: string;
let head: string;

beforeEach(async () => {
  h = await createGitHubHarness();
  base = h.api.commit(null, 'base');
  h.api.branches.set('main', base);
  h.api.verifiedCommits.add(base);
  head = h.api.commit(base, 'pr1');
  h.api.openPr(1, { headSha: head });
  h.api.requiredChecks.set('main', ['build']);
  await h.app.service.createQueue(h.ctx, h.key, {});
});
afterEach(() => h.close());

const view = (n: number) => h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: n });
const signaturesRule: FakeRule = {
  type: 'required_signatures',
  ruleset_source_type: 'Repository',
  ruleset_source: 'acme/web',
  ruleset_id: 9,
};

describe('required signatures', () => {
  it('a PR blocked for an unverified commit waits NOT_READY naming the rule, the commit and how to sign it', async () => {
    h.api.signedBranches.add('main');
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    const { entry, reason } = await view(1);
    expect(entry.state).toBe('NOT_READY');
    expect(reason).toMatchObject({
      code: 'BLOCKED_BY_FORGE',
      detail: `main's branch protection requires signed commits, and GitHub has not verified the signature of commit ${head.slice(0, 7)} (unsigned) of PR #1: sign it with a key of the author's GitHub account (e.g. git rebase --exec 'git commit --amend --no-edit -S' origin/main) and force-push`,
    });
  });

  it('a ruleset rule is read too; a PR whose commits are verified is tested and merged with squash', async () => {
    h.api.rules.set('main', [signaturesRule]);
    const forge = makeForge(h.api);
    expect((await forge.getPullRequest(bindingFor(h.api), 1))?.unmergeable?.detail).toMatch(
      /^the ruleset "acme\/web" on main requires signed commits, and GitHub has not verified/,
    );
    h.api.verifiedCommits.add(head);
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    const { entry } = await view(1);
    expect(entry.state).toBe('TESTING');
    const testSha = h.api.branches.get(`greenline-merge/pr-1/${entry.runId}`)!;
    await h.deliver('check_run', checkRunCompleted({ owner: 'acme', name: 'web' }, testSha, 'build', 'success'));
    await h.runEffects();
    expect((await view(1)).entry.state).toBe('MERGED');
  });

  it('rebase, whose commits GitHub cannot sign: nothing merged, and the reason names the rule and what to change', async () => {
    h.api.rules.set('main', [signaturesRule]);
    h.api.verifiedCommits.add(head);
    await h.app.service.updateQueue(h.ctx, h.key, { mergeMethod: 'rebase' });
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    const { entry } = await view(1);
    const testSha = h.api.branches.get(`greenline-merge/pr-1/${entry.runId}`)!;
    await h.deliver('check_run', checkRunCompleted({ owner: 'acme', name: 'web' }, testSha, 'build', 'success'));
    await h.runEffects();
    expect(h.api.log.filter((l) => l.startsWith('PUT'))).toEqual([]);
    expect(await view(1)).toMatchObject({
      entry: { state: 'FAILED' },
      reason: {
        code: 'MERGE_REFUSED',
        detail:
          'the ruleset "acme/web" on main requires signed commits, and GitHub cannot sign the commits it rebases, so it refuses every rebase merge into main; nothing merged: use mergeMethod squash (GitHub signs the squash commit) or merge_commit (with the PRs\' commits signed)',
      },
    });
  });
});
