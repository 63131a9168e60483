/**
 * Lanes from paths on the git forge, in the real service over real repositories: with
 * impactedTargetsFromPaths, parallel mode needs no upload; PRs touching disjoint globs are tested side
 * by side, a PR touching both waits on both, and each says why it is in its lane.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitForge } from '../../../src/forge/git/index.js';
import { outlookText } from '../../../src/forge/presence.js';
import type { QueueKey } from '../../../src/app/service-port.js';
import { git } from '../../../src/git/git.js';
import { makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';
import { type ServiceOverForge, serviceOverForge, silentLogger } from '../../helpers/service-over-forge.js';

let fx: GitFixture;
let s: ServiceOverForge;
let key: QueueKey;

beforeEach(async () => {
  fx = await makeGitFixture();
  const { owner, name } = fx.binding().repo;
  s = await serviceOverForge({
    forge: 'git',
    adapter: () => createGitForge({ dataDir: fx.dataDir, logger: silentLogger, fetchTtlMs: 0 }),
    connect: { slug: `local/${owner}/${name}`, remote: fx.remote, requiredStatuses: ['build'] },
    pollIntervalMs: 60_000,
  });
  key = { repo: { host: 'local', owner, name }, targetBranch: 'main' };
});
afterEach(async () => {
  await s.close();
  // The tests end with PRs still testing: their test branches are the runs', not leftovers.
  const branches = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/greenline-merge/'], {
    cwd: fx.remote,
  });
  for (const ref of branches.split('\n').filter(Boolean)) await git(['update-ref', '-d', ref], { cwd: fx.remote });
  await fx.cleanup();
});

const view = (n: number) => s.app.service.getSubmittedPullRequest(s.ctx, key, { number: n });
/** The PRs merged into the test commit of PR `n`'s run, in order. */
async function testedWith(n: number): Promise<number[]> {
  const { entry } = await view(n);
  expect(entry.state, `PR #${n}`).toBe('TESTING');
  return (await s.app.service.getTestingDetails(s.ctx, key, entry.runId!)).run.prs.map((p) => p.number);
}

describe('lanes from paths', () => {
  it('tests PRs touching disjoint globs side by side, and a PR touching both on top of both', async () => {
    await s.app.service.createQueue(s.ctx, key, { mode: 'parallel', concurrency: 5 });
    await s.app.service.updateQueue(s.ctx, key, {
      impactedTargetsFromPaths: { targets: { web: ['web/**'], api: ['api/**'] } },
    });
    await fx.openPr(1, { 'web/a.css': 'a\n' });
    await fx.openPr(2, { 'api/b.go': 'b\n' });
    await fx.openPr(3, { 'web/c.css': 'c\n', 'api/c.go': 'c\n' });
    await fx.openPr(4, { 'README.md': 'docs\n' });
    for (const n of [1, 2, 3, 4]) await s.app.service.submitPullRequest(s.ctx, key, { prNumber: n });
    await s.app.runner.drain();

    expect(await testedWith(1)).toEqual([1]);
    expect(await testedWith(2)).toEqual([2]);
    expect(await testedWith(3)).toEqual([1, 2, 3]);
    // No glob matches: the fallback, every target, behind everything.
    expect(await testedWith(4)).toEqual([1, 2, 3, 4]);
    expect((await view(1)).entry).toMatchObject({
      impactedTargets: ['web'],
      impactedTargetsWhy: 'touches web/** (web)',
    });
    expect((await view(3)).entry).toMatchObject({
      impactedTargets: ['web', 'api'],
      impactedTargetsWhy: 'touches web/** (web); api/** (api)',
    });
    // Its outlook says why it is in its lane: the API's laneReason and the forge's comment use these words.
    const three = (await view(3)).outlook;
    expect(three?.lane).toBe('web, api — touches web/** (web); api/** (api)');
    expect(outlookText(three ?? undefined)).toContain('In its lane: web, api — touches web/** (web); api/** (api).');
    expect((await view(4)).entry).toMatchObject({
      impactedTargets: 'ALL',
      impactedTargetsWhy: 'its paths match no glob of impactedTargetsFromPaths: its fallback, every target',
    });
  });

  it("uploaded targets win over the paths'; a change to the setting applies to PRs admitted after it", async () => {
    await s.app.service.createQueue(s.ctx, key, { mode: 'parallel' });
    await s.app.service.updateQueue(s.ctx, key, { impactedTargetsFromPaths: { targets: { web: ['web/**'] } } });
    const head1 = await fx.openPr(1, { 'web/a.css': 'a\n' });
    await s.app.service.setImpactedTargets(s.ctx, key, { prNumber: 1, sha: head1, targets: ['mobile'] });
    await s.app.service.submitPullRequest(s.ctx, key, { prNumber: 1 });
    const uploaded = (await view(1)).entry;
    expect(uploaded.impactedTargets).toEqual(['mobile']);
    expect(uploaded).not.toHaveProperty('impactedTargetsWhy');

    await fx.openPr(2, { 'web/b.css': 'b\n' });
    await s.app.service.submitPullRequest(s.ctx, key, { prNumber: 2 });
    await s.app.service.updateQueue(s.ctx, key, { impactedTargetsFromPaths: { targets: { site: ['web/**'] } } });
    expect((await view(2)).entry.impactedTargets).toEqual(['web']);
    await fx.openPr(3, { 'web/c.css': 'c\n' });
    await s.app.service.submitPullRequest(s.ctx, key, { prNumber: 3 });
    expect((await view(3)).entry.impactedTargets).toEqual(['site']);
  });
});
