/**
 * Lists GitHub answers in pages (at most 100 items, `Link: <…>; rel="next"`): the github forge reads
 * every page of a PR's comments, a commit's check runs and its combined status.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_CONFIG } from '../../../src/engine/config.js';
import { commentMarker } from '../../../src/forge/presence.js';
import { bindingFor, makeForge, prEvent } from './github-harness.js';
import { FakeGitHubApi } from './fake-github-api.js';

function repoWithPr(): { api: FakeGitHubApi; base: string; head: string } {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  const head = api.commit(base, 'one');
  api.openPr(1, { headSha: head });
  return { api, base, head };
}

const queued = prEvent('pull_request.queued');

describe('github forge: lists of more than one page', () => {
  it('a PR with 150 comments whose queue comment is on page 2 gets that comment edited, not a second one', async () => {
    const { api } = repoWithPr();
    for (let i = 0; i < 150; i++)
      api.comments.push({
        id: 1 + i,
        issue: 1,
        body: i === 120 ? `${commentMarker('main')}\nan earlier state` : `comment ${i}`,
      });
    const forge = makeForge(api);
    const config = { ...DEFAULT_QUEUE_CONFIG, commentsEnabled: true, statusCheckEnabled: false };
    await forge.onQueueEvent(bindingFor(api), { targetBranch: 'main', config }, queued);

    expect(api.comments).toHaveLength(150);
    expect(api.comments[120]!.body).toContain('Queued');
    expect(api.log.filter((l) => l.includes('comments'))).toEqual([
      'GET /repos/acme/web/issues/1/comments?per_page=100',
      'GET /repos/acme/web/issues/1/comments?per_page=100&page=2',
      'PATCH /repos/acme/web/issues/comments/121',
    ]);
  });

  it('a commit with 120 check runs whose required one is on page 2 is seen, and so is a status on page 2', async () => {
    const { api, head } = repoWithPr();
    api.requiredChecks.set('main', ['build', 'deploy-preview']);
    for (let i = 0; i < 120; i++) {
      const name = i === 110 ? 'build' : `lint-${i}`;
      api.checkRuns.push({ id: 1 + i, name, head_sha: head, status: 'completed', conclusion: 'success' });
      api.statuses.push({ sha: head, context: i === 115 ? 'deploy-preview' : `ci/${i}`, state: 'success' });
    }
    const forge = makeForge(api);
    const b = bindingFor(api);

    // The commit's CI results: its 120 check runs and its 120 statuses, each list read on two pages.
    const runs = await forge.checkStatuses(b, head);
    expect(runs).toHaveLength(240);
    expect(runs).toContainEqual(expect.objectContaining({ context: 'build', state: 'success' }));
    expect(runs).toContainEqual(expect.objectContaining({ context: 'deploy-preview', state: 'success' }));
    expect(await forge.directMergeFacts(b, { headSha: head, baseBranch: 'main' })).toMatchObject({
      checksPassed: true,
    });
  });
});
