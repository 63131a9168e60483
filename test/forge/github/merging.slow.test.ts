/**
 * The github forge's merging against the FAKE GitHub API as GitHub protects branches: "require
 * branches to be up to date before merging" (classic `strict`, ruleset
 * `strict_required_status_checks_policy`: each behind PR is brought up to date by update-branch and
 * merged, the target ending on the tested content) and `merge_queue` rules refuse what greenline must
 * then not start (a batch is merged whole or not at all, and the reason names the setting); a PR of a
 * GitHub stack is merged through GitHub's asynchronous merge (202 and a UUID, 409 for a request made
 * before, the `sha` guard, refusals in GitHub's words);
 * `merge_commit` lands the tested commits with the history GitHub's merges would have; a 204 of the
 * merges API after a 5xx is checked; a 405 that says to try again is tried again.
 */
import { describe, expect, it } from 'vitest';
import type { RunPr } from '../../../src/engine/types.js';
import { bindingFor, makeForge } from './github-harness.js';
import { FakeGitHubApi, type FakeRule } from './fake-github-api.js';

/**
 * `main` at `base` requiring the check `build`, and PRs 1 and 2 built on `base` (heads h1, h2); CI
 * passes `build` on each head GitHub brings up to date.
 */
function repo(): { api: FakeGitHubApi; base: string; h1: string; h2: string; prs: RunPr[] } {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  api.requiredChecks.set('main', ['build']);
  api.checksOnUpdatedHeads.set('build', 'success');
  const h1 = api.commit(base, 'one');
  const h2 = api.commit(base, 'two');
  api.openPr(1, { headSha: h1, title: 'Add one' });
  api.openPr(2, { headSha: h2, title: 'Add two' });
  return {
    api,
    base,
    h1,
    h2,
    prs: [
      { number: 1, headSha: h1 },
      { number: 2, headSha: h2 },
    ],
  };
}

/** A ruleset's rule requiring `build` on main, strict or not. */
const requiredChecksRule = (strict: boolean): FakeRule => ({
  type: 'required_status_checks',
  parameters: {
    strict_required_status_checks_policy: strict,
    required_status_checks: [{ context: 'build' }],
  },
  ruleset_source_type: 'Repository',
  ruleset_source: 'acme/web',
  ruleset_id: 7,
});

type Method = 'merge_commit' | 'squash' | 'rebase';

/** Builds the test branch of `prs` on `base` and advances main to it with `method`. */
async function testAndMerge(api: FakeGitHubApi, base: string, prs: RunPr[], method: Method) {
  const forge = makeForge(api);
  const built = await forge.createTestBranch(bindingFor(api), { branch: 'greenline-merge/t/run', baseSha: base, prs });
  if (!built.ok) throw new Error(built.detail);
  api.clearLog();
  const result = await forge.advanceTarget(bindingFor(api), {
    targetBranch: 'main',
    expectedSha: base,
    testSha: built.sha,
    prs,
    method,
  });
  return { result, testSha: built.sha };
}

const merges = (api: FakeGitHubApi) => api.log.filter((l) => l.startsWith('PUT'));

describe('strict protection: require branches to be up to date before merging', () => {
  it('GitHub (the fake) reports a PR whose head lacks the tip as behind and refuses its merge with 405', async () => {
    const { api, base } = repo();
    api.strictBranches.add('main');
    api.branches.set('main', api.commit(base, 'moved'));
    const forge = makeForge(api);
    const res = await api.fetch(`${api.baseUrl}/repos/acme/web/pulls/1`);
    expect(((await res.json()) as { mergeable_state: string }).mergeable_state).toBe('behind');
    // The queue tests the PR on the tip, so it is admitted: whether it can land is asked when merging.
    expect((await forge.getPullRequest(bindingFor(api), 1))!.mergeability).toBe('mergeable');
    const put = await api.fetch(`${api.baseUrl}/repos/acme/web/pulls/1/merge`, {
      method: 'PUT',
      body: JSON.stringify({ merge_method: 'squash' }),
    });
    expect([put.status, await put.json()]).toEqual([
      405,
      { message: 'Required status check "build" is expected.', documentation_url: expect.any(String) },
    ]);
  });

  it('squash batch under classic strict: GitHub brings each behind PR up to date, every PR merges, main ends on the tested content', async () => {
    const { api, base, h2, prs } = repo();
    api.strictBranches.add('main');
    const { result, testSha } = await testAndMerge(api, base, prs, 'squash');
    const updatedHead = api.pulls.get(2)!.head.sha;
    expect(result).toEqual({
      ok: true,
      newSha: api.branches.get('main'),
      note: "main's branch protection requires branches to be up to date before merging (strict) and greenline merges with squash, so GitHub merged main into the branch of PR #2 (update-branch) and greenline merged the PRs one at a time, each on the tested content: each update adds a merge commit to the PR's branch and starts its checks on GitHub again. To merge a batch at once: use mergeMethod merge_commit and allow greenline's App to bypass the rule (greenline then fast-forwards main to the tested commit), or turn off 'Require branches to be up to date before merging' in main's branch protection",
    });
    // PR 1 contained the tip and merged as tested; PR 2 was updated from its tested head, then merged with the new head as guard.
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => [c.path, c.body])).toEqual([
      ['/repos/acme/web/pulls/1/merge', { sha: prs[0]!.headSha, merge_method: 'squash' }],
      ['/repos/acme/web/pulls/2/update-branch', { expected_head_sha: h2 }],
      ['/repos/acme/web/pulls/2/merge', { sha: updatedHead, merge_method: 'squash' }],
    ]);
    expect(api.isAncestor(h2, updatedHead)).toBe(true);
    expect([api.pulls.get(1)!.merged, api.pulls.get(2)!.merged]).toEqual([true, true]);
    expect(api.treeOf(api.branches.get('main')!)).toBe(api.treeOf(testSha));
  });

  it('a ruleset with strict_required_status_checks_policy is found too: a rebase batch merges, updated PR by PR', async () => {
    const { api, base, prs } = repo();
    api.requiredChecks.delete('main');
    api.rules.set('main', [requiredChecksRule(true)]);
    const { result, testSha } = await testAndMerge(api, base, prs, 'rebase');
    expect(result).toMatchObject({
      ok: true,
      note: expect.stringMatching(
        /^the ruleset "acme\/web" on main requires branches to be up to date before merging \(strict\) and greenline merges with rebase, so GitHub merged main into the branch of PR #2/,
      ),
    });
    expect(api.treeOf(api.branches.get('main')!)).toBe(api.treeOf(testSha));
  });

  it('a single PR that lacks the tip is brought up to date and merged; one that contains it is merged as it is', async () => {
    const { api, base, h1, h2 } = repo();
    api.strictBranches.add('main');
    const one = await testAndMerge(api, base, [{ number: 1, headSha: h1 }], 'squash');
    expect(one.result).toEqual({ ok: true, newSha: api.branches.get('main') });
    expect(merges(api)).toEqual(['PUT /repos/acme/web/pulls/1/merge']);
    const tip = api.branches.get('main')!;
    const two = await testAndMerge(api, tip, [{ number: 2, headSha: h2 }], 'squash');
    expect(two.result).toMatchObject({ ok: true, note: expect.stringContaining('branch of PR #2 (update-branch)') });
    expect(merges(api)).toEqual(['PUT /repos/acme/web/pulls/2/update-branch', 'PUT /repos/acme/web/pulls/2/merge']);
    expect(api.treeOf(api.branches.get('main')!)).toBe(api.treeOf(two.testSha));
  });

  it('GitHub refusing to update a branch (a conflict) stops the merge there, saying so, with the PRs merged before it', async () => {
    const { api, base, h2, prs } = repo();
    api.strictBranches.add('main');
    api.conflicting.add(h2);
    const forge = makeForge(api);
    const result = await forge.advanceTarget(bindingFor(api), {
      targetBranch: 'main',
      expectedSha: base,
      testSha: api.commit(base, 'tested'),
      prs,
      method: 'squash',
    });
    expect(result).toEqual({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail:
        "GitHub refused to bring PR #2's branch up to date with main (update-branch: merge conflict between base and head); give greenline's App write access to the PR's head repository, or let the PR's author merge main into it",
      mergedPrNumbers: [1],
      newSha: api.branches.get('main'),
    });
    expect(api.pulls.get(2)!.head.sha).toBe(h2);
  });

  it("a required check that fails on the PR's updated head stops the merge there, naming the check", async () => {
    const { api, base, prs } = repo();
    api.strictBranches.add('main');
    api.checksOnUpdatedHeads.set('build', 'failure');
    const { result } = await testAndMerge(api, base, prs, 'squash');
    const head = api.pulls.get(2)!.head.sha;
    expect(result).toEqual({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: `PR #2's branch was brought up to date with main (${head.slice(0, 7)}), and its required check "build" failed there; fix the PR and submit it again`,
      mergedPrNumbers: [1],
      newSha: api.branches.get('main'),
    });
    expect(merges(api)).toEqual(['PUT /repos/acme/web/pulls/1/merge', 'PUT /repos/acme/web/pulls/2/update-branch']);
  });

  it("where greenline's own check is required, the updated head is given it as passed: every PR merges", async () => {
    const { api, base, prs } = repo();
    api.strictBranches.add('main');
    api.requiredChecks.set('main', ['build', 'greenline (main)']);
    const { result, testSha } = await testAndMerge(api, base, prs, 'squash');
    expect(result.ok).toBe(true);
    const updated = api.pulls.get(2)!.head.sha;
    // A token cannot create check runs: greenline's check is a commit status there.
    expect(api.statuses.filter((s) => s.sha === updated)).toEqual([
      { sha: updated, context: 'greenline (main)', state: 'success' },
    ]);
    expect(api.treeOf(api.branches.get('main')!)).toBe(api.treeOf(testSha));
  });

  it('GitHub (the fake) refuses to merge an updated head until its required checks succeeded on it', async () => {
    const { api, base } = repo();
    api.strictBranches.add('main');
    api.checksOnUpdatedHeads.clear();
    api.branches.set('main', api.commit(base, 'moved'));
    const put = (path: string, body: unknown) =>
      api.fetch(`${api.baseUrl}/repos/acme/web/pulls/1/${path}`, { method: 'PUT', body: JSON.stringify(body) });
    expect((await put('update-branch', {})).status).toBe(202);
    expect((await put('update-branch', {})).status).toBe(422); // nothing new on the base any more
    expect((await put('merge', { merge_method: 'squash' })).status).toBe(405);
    api.checkRuns.push({
      id: 1,
      name: 'build',
      head_sha: api.pulls.get(1)!.head.sha,
      status: 'completed',
      conclusion: 'success',
    });
    expect((await put('merge', { merge_method: 'squash' })).status).toBe(200);
  });

  it('a PR pushed to while the batch merges is not brought up to date: expected_head_sha guards the tested head', async () => {
    const { api, base, h2, prs } = repo();
    api.strictBranches.add('main');
    api.onAnswered = (call) => {
      if (call.path === '/repos/acme/web/pulls/1/merge') api.pulls.get(2)!.head.sha = api.commit(h2, 'pushed');
    };
    const { result } = await testAndMerge(api, base, prs, 'squash');
    expect(result).toEqual({
      ok: false,
      reason: 'PR_UPDATED_AT_MERGE_TIME',
      detail: `PR #2 is no longer at the tested ${h2.slice(0, 7)}, so its branch was not brought up to date with main (GitHub: expected head sha didn't match current head ref.)`,
      mergedPrNumbers: [1],
      newSha: api.branches.get('main'),
    });
    expect(api.pulls.get(2)!.merged).toBe(false);
  });

  it('strict without a required check is inert (GitHub ignores it): the batch merges PR by PR', async () => {
    const { api, base, prs } = repo();
    api.requiredChecks.set('main', []);
    api.strictBranches.add('main');
    const { result } = await testAndMerge(api, base, prs, 'squash');
    expect(result.ok).toBe(true);
    expect(merges(api)).toHaveLength(2);
  });

  it('merge_commit where greenline may bypass the rule: the target is fast-forwarded to exactly the tested commit', async () => {
    const { api, base, prs } = repo();
    api.strictBranches.add('main');
    api.protectedBranches.add('main');
    api.bypassProtection = true;
    const { result, testSha } = await testAndMerge(api, base, prs, 'merge_commit');
    expect(result).toEqual({ ok: true, newSha: testSha });
    expect(api.branches.get('main')).toBe(testSha);
    expect(merges(api)).toEqual([]);
  });

  it('merge_commit where GitHub refuses the fast-forward: merged PR by PR, and the note says to allow the bypass', async () => {
    const { api, base, prs } = repo();
    api.requiredChecks.delete('main');
    api.rules.set('main', [requiredChecksRule(true)]);
    const { result, testSha } = await testAndMerge(api, base, prs, 'merge_commit');
    expect(result).toMatchObject({
      ok: true,
      note: expect.stringContaining(
        "To merge a batch at once: allow greenline's App to bypass the rule (greenline then fast-forwards main to the tested commit), or turn off",
      ),
    });
    expect(merges(api)).toEqual([
      'PUT /repos/acme/web/pulls/1/merge',
      'PUT /repos/acme/web/pulls/2/update-branch',
      'PUT /repos/acme/web/pulls/2/merge',
    ]);
    expect(api.treeOf(api.branches.get('main')!)).toBe(api.treeOf(testSha));
  });
});

describe('merge_commit: the target receives the history GitHub would give it', () => {
  it("fast-forwarding lands merge commits titled as GitHub's merges, or by the merge-commit-title line", async () => {
    const { api, base, h1, h2, prs } = repo();
    api.pulls.get(2)!.body = 'Why\nmerge-commit-title: Ship two (#2)\n';
    const { result, testSha } = await testAndMerge(api, base, prs, 'merge_commit');
    expect(result).toEqual({ ok: true, newSha: testSha });
    const [first, head] = api.commits.get(testSha)!;
    expect(head).toBe(h2);
    expect(api.commits.get(first!)).toEqual([base, h1]);
    expect(api.messages.get(first!)).toBe('Merge pull request #1 from acme/feature-1\n\nAdd one');
    expect(api.messages.get(testSha)).toBe('Ship two (#2)\n\nAdd two');
  });
});

describe('test branches: a 204 of the merges API is checked', () => {
  it('a 5xx after the merge went through: the retry answers 204, and the test branch still contains the PR', async () => {
    const { api, base, h1 } = repo();
    api.failAfterEffect('POST', /\/merges$/, 502); // PR 1 is merged, then GitHub answers 502
    const built = await makeForge(api).createTestBranch(bindingFor(api), {
      branch: 'greenline-merge/t/run',
      baseSha: base,
      prs: [{ number: 1, headSha: h1 }],
    });
    expect(api.calls.filter((c) => c.path.endsWith('/merges')).map((c) => c.status)).toEqual([502, 204]);
    expect(built.ok).toBe(true);
    const sha = (built as { sha: string }).sha;
    expect(sha).not.toBe(base);
    expect(api.isAncestor(h1, sha)).toBe(true);
    expect(api.branches.get('greenline-merge/t/run')).toBe(sha);
  });
});

describe("GitHub stacks and GitHub's own merge queue", () => {
  const stack = { base: { ref: 'main', sha: 'x' }, size: 2, position: 1, id: 31, number: 4 };

  it('a PR at the bottom of a GitHub stack is mergeable for the queue like any other', async () => {
    const { api } = repo();
    api.pulls.get(1)!.stack = stack;
    const pr = await makeForge(api).getPullRequest(bindingFor(api), 1);
    expect(pr).toMatchObject({ mergeability: 'mergeable', baseBranch: 'main' });
    expect(pr).not.toHaveProperty('unmergeable');
  });

  it('a stacked PR merges through the asynchronous merge, its result read by UUID; the unstacked one through the merge endpoint', async () => {
    const { api, base, prs } = repo();
    api.pulls.get(2)!.stack = stack;
    const { result } = await testAndMerge(api, base, prs, 'squash');
    expect(result).toMatchObject({ ok: true });
    const [request] = api.asyncMerges.requests;
    expect(api.log.filter((l) => /^(PUT|GET \/repos\/acme\/web\/pulls\/2\/merge-async)/.test(l))).toEqual([
      'PUT /repos/acme/web/pulls/1/merge',
      'PUT /repos/acme/web/pulls/2/merge-async',
      `GET /repos/acme/web/pulls/2/merge-async/${request!.uuid}`,
      `GET /repos/acme/web/pulls/2/merge-async/${request!.uuid}`,
    ]);
    expect(api.calls.find((c) => c.path.endsWith('/2/merge-async'))!.body).toEqual({
      sha: prs[1]!.headSha,
      merge_method: 'squash',
      merge_action: 'direct_merge',
    });
    expect([api.pulls.get(1)!.merged, api.pulls.get(2)!.merged]).toEqual([true, true]);
    expect((result as { newSha: string }).newSha).toBe(api.branches.get('main'));
  });

  it('merge_commit never fast-forwards the target past a stacked PR: GitHub merges it', async () => {
    const { api, base, prs } = repo();
    api.bypassProtection = true;
    api.pulls.get(1)!.stack = stack;
    const { result } = await testAndMerge(api, base, prs.slice(0, 1), 'merge_commit');
    expect(result).toMatchObject({ ok: true });
    expect(merges(api)).toEqual(['PUT /repos/acme/web/pulls/1/merge-async']);
    expect(api.log.some((l) => l.startsWith('PATCH'))).toBe(false);
    expect(api.pulls.get(1)!.merged).toBe(true);
  });

  it('a merge asked for before (409) is followed by the UUID GitHub names, not asked for again', async () => {
    const { api, base, prs } = repo();
    api.pulls.get(1)!.stack = stack;
    const earlier = api.asyncMerges.request(1, { sha: prs[0]!.headSha, merge_method: 'squash' });
    expect(earlier.status).toBe(202);
    const { result } = await testAndMerge(api, base, prs.slice(0, 1), 'squash');
    expect(result).toMatchObject({ ok: true });
    expect(api.calls.find((c) => c.path.endsWith('/1/merge-async'))!.status).toBe(409);
    expect(api.asyncMerges.requests).toHaveLength(1);
    expect(api.pulls.get(1)!.merged).toBe(true);
  });

  it('a stacked PR pushed after it was tested: GitHub cancels the merge (sha guard), and the reason says so', async () => {
    const { api, base, prs } = repo();
    api.pulls.get(1)!.stack = stack;
    api.asyncMerges.readsBeforeDone = 1;
    api.onAnswered = (call) => {
      if (call.method === 'PUT' && call.path.endsWith('/merge-async'))
        api.pulls.get(1)!.head.sha = api.commit(prs[0]!.headSha, 'pushed');
    };
    const { result } = await testAndMerge(api, base, prs.slice(0, 1), 'squash');
    expect(result).toEqual({
      ok: false,
      reason: 'PR_UPDATED_AT_MERGE_TIME',
      detail:
        "GitHub's asynchronous merge of PR #1 failed: The head of the pull request was modified after the merge was requested.; nothing merged",
    });
    expect(api.branches.get('main')).toBe(base);
  });

  it("a stacked PR GitHub will not merge (400) fails with GitHub's words, the PRs merged before it named", async () => {
    const { api, base, prs } = repo();
    api.pulls.get(2)!.stack = stack;
    api.onAnswered = (call) => {
      if (call.method === 'PUT' && call.path.endsWith('/1/merge')) api.pulls.get(2)!.state = 'closed';
    };
    const { result } = await testAndMerge(api, base, prs, 'squash');
    expect(result).toMatchObject({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: 'GitHub refused to merge PR #2 (HTTP 400): Pull request is closed.',
      mergedPrNumbers: [1],
    });
  });

  it('a merge_queue rule: nothing merged, and the reason names the ruleset and what to change', async () => {
    const { api, base, prs } = repo();
    api.rules.set('main', [
      {
        type: 'merge_queue',
        parameters: {
          check_response_timeout_minutes: 60,
          grouping_strategy: 'ALLGREEN',
          max_entries_to_build: 5,
          max_entries_to_merge: 5,
          merge_method: 'SQUASH',
          min_entries_to_merge: 1,
          min_entries_to_merge_wait_minutes: 5,
        },
        ruleset_source_type: 'Repository',
        ruleset_source: 'acme/web',
        ruleset_id: 9,
      },
    ]);
    const { result } = await testAndMerge(api, base, prs, 'squash');
    expect(result).toEqual({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail:
        'the ruleset "acme/web" on main requires GitHub\'s merge queue (merge_queue rule), and GitHub refuses every merge made outside it; nothing merged: remove the merge_queue rule for main to merge with greenline, or use mergeMethod merge_commit and allow greenline\'s App to bypass the rule (greenline then fast-forwards main to the tested commit)',
    });
    expect(merges(api)).toEqual([]);
    // Allowed to bypass it, merge_commit lands the tested commit.
    api.bypassProtection = true;
    const { result: ff, testSha } = await testAndMerge(api, base, prs, 'merge_commit');
    expect(ff).toEqual({ ok: true, newSha: testSha });
  });
});

describe('405 from the merge endpoint', () => {
  /** A forge whose client does not retry (what merging does itself is what is seen). */
  const noRetries = (api: FakeGitHubApi) => makeForge(api, { retry: { retries: 0, retryAfterBaseValue: 1 } });
  const advance = (api: FakeGitHubApi, base: string, prs: RunPr[]) =>
    noRetries(api).advanceTarget(bindingFor(api), {
      targetBranch: 'main',
      expectedSha: base,
      testSha: 'x',
      prs,
      method: 'squash',
    });

  it('"Base branch was modified. Review and try the merge again." is tried again while the target has not moved', async () => {
    const { api, base, prs } = repo();
    api.failNext('PUT', /pulls\/2\/merge$/, 405, {
      message: 'Base branch was modified. Review and try the merge again.',
    });
    const r = await advance(api, base, prs);
    expect(r).toEqual({ ok: true, newSha: api.branches.get('main') });
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => `${c.status} ${c.path}`)).toEqual([
      '200 /repos/acme/web/pulls/1/merge',
      '405 /repos/acme/web/pulls/2/merge',
      '200 /repos/acme/web/pulls/2/merge',
    ]);
  });

  it('tried again only while the target is where the merges left it: a push from outside meanwhile is said in words', async () => {
    const { api, base, prs } = repo();
    const outside = api.commit(base, 'pushed from outside');
    // GitHub answers PR 1's merge "Base branch was modified" because someone pushed to main meanwhile.
    const pushThenRefuse: typeof fetch = async (input, init) => {
      if (init?.method === 'PUT' && String(input).endsWith('/pulls/1/merge') && api.branches.get('main') === base) {
        api.branches.set('main', outside);
        api.failNext('PUT', /pulls\/1\/merge$/, 405, {
          message: 'Base branch was modified. Review and try the merge again.',
        });
      }
      return api.fetch(input as string, init);
    };
    const forge = makeForge(api, { fetch: pushThenRefuse, retry: { retries: 0, retryAfterBaseValue: 1 } });
    const r = await forge.advanceTarget(bindingFor(api), {
      targetBranch: 'main',
      expectedSha: base,
      testSha: 'x',
      prs,
      method: 'squash',
    });
    expect(r).toEqual({
      ok: false,
      reason: 'TARGET_MOVED',
      detail: `main moved to ${outside.slice(0, 7)} outside the queue while PR #1 was being merged (GitHub: Base branch was modified. Review and try the merge again.); nothing merged`,
      newSha: outside,
    });
    expect(merges(api)).toEqual(['PUT /repos/acme/web/pulls/1/merge']);
  });

  it("any other 405 is final: GitHub's message in words, with what merged before it", async () => {
    const { api, base, prs } = repo();
    api.pulls.get(2)!.mergeable = false;
    const r = await advance(api, base, prs);
    expect(r).toEqual({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: 'GitHub refused to merge PR #2 (HTTP 405): Pull Request is not mergeable',
      mergedPrNumbers: [1],
      newSha: api.branches.get('main'),
    });
    expect(merges(api)).toHaveLength(2);
  });
});
