/**
 * greenline's own check (`greenline (<branch>)`) required by branch protection, against the FAKE
 * GitHub API: never required of a test commit; a PR GitHub blocks only for it is ready; it is passed
 * on the tested heads before the queue merges them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bindingFor, createGitHubHarness, type GitHubHarness, makeForge } from './github-harness.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { checkRunCompleted } from './webhook-examples.js';

const OWN = 'greenline (main)';

/** `main`, and PR 1 that GitHub reports blocked; main requires build and greenline's check. */
function blockedPr(): { api: FakeGitHubApi; head: string; base: string } {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  const head = api.commit(base, 'one');
  api.openPr(1, { headSha: head, mergeable_state: 'blocked' });
  api.requiredChecks.set('main', ['build', OWN]);
  return { api, head, base };
}

const passed = (api: FakeGitHubApi, sha: string, name: string) =>
  api.checkRuns.push({ id: api.checkRuns.length + 1, name, head_sha: sha, status: 'completed', conclusion: 'success' });

describe("github forge: greenline's own required check", () => {
  it('is never a required status of test commits', async () => {
    const { api } = blockedPr();
    expect(await makeForge(api).requiredStatuses(bindingFor(api), 'main')).toEqual(['build']);
  });

  it('a PR blocked only by it is ready: the other required checks passed on its head and no review is missing', async () => {
    const { api, head } = blockedPr();
    const forge = makeForge(api);
    const pr = () => forge.getPullRequest(bindingFor(api), 1);
    // build has not passed on the head: GitHub blocks it for more than greenline's check.
    expect(await pr()).toMatchObject({ mergeability: 'not_mergeable', unmergeable: { cause: 'blocked' } });
    passed(api, head, 'build');
    expect(await pr()).toMatchObject({ mergeability: 'mergeable' });
    expect((await pr())!.unmergeable).toBeUndefined();

    // One approving review required: missing, then given, then another reviewer requests changes.
    api.requiredApprovals.set('main', 1);
    expect(await pr()).toMatchObject({ mergeability: 'not_mergeable', unmergeable: { cause: 'blocked' } });
    api.reviews.push({ pr: 1, user: 'grace', state: 'APPROVED' });
    expect(await pr()).toMatchObject({ mergeability: 'mergeable' });
    api.reviews.push({ pr: 1, user: 'linus', state: 'CHANGES_REQUESTED' });
    expect(await pr()).toMatchObject({ mergeability: 'not_mergeable' });
  });

  it("a blocked PR stays blocked when greenline's check is not required (GitHub blocks it for something else)", async () => {
    const { api, head } = blockedPr();
    api.requiredChecks.set('main', ['build']);
    passed(api, head, 'build');
    expect(await makeForge(api).getPullRequest(bindingFor(api), 1)).toMatchObject({ mergeability: 'not_mergeable' });
  });

  it('is passed on the tested head before the merge', async () => {
    const { api, head, base } = blockedPr();
    const r = await makeForge(api).advanceTarget(bindingFor(api), {
      targetBranch: 'main',
      expectedSha: base,
      testSha: 'x',
      prs: [{ number: 1, headSha: head }],
      method: 'squash',
    });
    expect(r.ok).toBe(true);
    const log = api.log;
    const shown = log.indexOf(`POST /repos/acme/web/statuses/${head}`);
    expect(shown).toBeGreaterThanOrEqual(0);
    expect(shown).toBeLessThan(log.indexOf('PUT /repos/acme/web/pulls/1/merge'));
    expect(api.statuses).toEqual([{ sha: head, context: OWN, state: 'success' }]);
  });

  it('is not posted before a merge where the target does not require it', async () => {
    const { api, head, base } = blockedPr();
    api.requiredChecks.set('main', ['build']);
    await makeForge(api).advanceTarget(bindingFor(api), {
      targetBranch: 'main',
      expectedSha: base,
      testSha: 'x',
      prs: [{ number: 1, headSha: head }],
      method: 'squash',
    });
    expect(api.statuses).toEqual([]);
  });
});

describe("github forge in the service: greenline's own check required", () => {
  let h: GitHubHarness;
  afterEach(() => h.close());

  it('the blocked PR is admitted, its test commit waits for build alone, and it merges', async () => {
    h = await createGitHubHarness();
    const base = h.api.commit(null, 'base');
    h.api.branches.set('main', base);
    const head = h.api.commit(base, 'pr1');
    h.api.openPr(1, { headSha: head, mergeable_state: 'blocked' });
    h.api.requiredChecks.set('main', ['build', OWN]);
    passed(h.api, head, 'build');
    await h.app.service.createQueue(h.ctx, h.key, {});
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    const { entry } = await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 });
    expect(entry.state).toBe('TESTING');
    const testSha = h.api.branches.get(`greenline-merge/pr-1/${entry.runId}`)!;
    await h.deliver('check_run', checkRunCompleted({ owner: 'acme', name: 'web' }, testSha, 'build', 'success'));
    await h.runEffects();
    expect((await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 })).entry.state).toBe('MERGED');
    expect(h.api.pulls.get(1)!.merged).toBe(true);
  });
});
