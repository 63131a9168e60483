/**
 * Which queues a scrape covers (contract §2.12): every queue of the token's organization, or one
 * repository's with repo + repoHost; a repository of another organization is a 404; bad queries
 * are 400s naming the problem; no token, no metrics.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf } from '../api/api-harness.js';
import { createMetricsHarness, type MetricsHarness } from './scrape.js';

let m: MetricsHarness;
beforeEach(async () => {
  m = await createMetricsHarness();
  const { t } = m.h;
  await t.connectRepo('acme', 'github.com/acme/api');
  await t.connectRepo('other', 'github.com/other/x');
  // The same owner/name on another host, connected to the other organization.
  await t.connectRepo('other', 'git.example.com/acme/api');
  const other = await t.createOrg('other');
  t.forge.pushToBranch('github.com/acme/web', 'release');
  await m.h.t.service.createQueue(m.ctx, t.key('github.com/acme/web'), {});
  await m.h.t.service.createQueue(m.ctx, t.key('github.com/acme/web', 'release'), {});
  await m.h.t.service.createQueue(m.ctx, t.key('github.com/acme/api'), {});
  await m.h.t.service.createQueue(other.ctx, t.key('github.com/other/x'), {});
  await m.h.t.service.createQueue(other.ctx, t.key('git.example.com/acme/api'), {});
});
afterEach(() => m.close());

/** repo/branch pairs that have a depth series. */
const queuesIn = (x: Awaited<ReturnType<MetricsHarness['scrape']>>) =>
  x
    .series('mq_depth_current')
    .filter((s) => s.labels.queue_type === 'main')
    .map((s) => `${s.labels.repo}@${s.labels.branch}`)
    .sort();

describe('getMergeQueueMetrics scope', () => {
  it("covers every queue of the token's organization, and only those, without repo", async () => {
    expect(queuesIn(await m.scrape())).toEqual(['acme/api@main', 'acme/web@main', 'acme/web@release']);
  });

  it('covers one repository with repo and repoHost', async () => {
    expect(queuesIn(await m.scrape('?repo=acme/web&repoHost=github.com'))).toEqual([
      'acme/web@main',
      'acme/web@release',
    ]);
    expect(queuesIn(await m.scrape('?repo=acme/api&repoHost=github.com'))).toEqual(['acme/api@main']);
  });

  it('drops a deleted queue', async () => {
    await m.h.t.service.deleteQueue(m.ctx, m.h.t.key('github.com/acme/web', 'release'));
    expect(queuesIn(await m.scrape())).toEqual(['acme/api@main', 'acme/web@main']);
  });

  it('answers every family, with no series, for an organization without queues', async () => {
    const { token } = await m.h.t.createOrg('empty');
    const res = await m.h.get('/v1/getMergeQueueMetrics', { 'x-api-token': token });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('# TYPE mq_depth_current gauge');
    expect(res.body).toContain('# TYPE mq_pr_time_in_queue_1h_seconds histogram');
    expect(res.body.split('\n').filter((l) => l !== '' && !l.startsWith('#'))).toEqual([]);
  });

  it('answers 404 for a repository of another organization or on another host', async () => {
    for (const query of [
      '?repo=other/x&repoHost=github.com',
      '?repo=acme/api&repoHost=git.example.com',
      '?repo=acme/nope&repoHost=github.com',
    ]) {
      expect(errorOf(await m.h.get(`/v1/getMergeQueueMetrics${query}`)), query).toMatchObject({
        status: 404,
        code: 'REPO_NOT_FOUND',
      });
    }
  });

  it('answers 400 naming the problem for repo without repoHost, a malformed repo or an empty repoHost', async () => {
    expect(errorOf(await m.h.get('/v1/getMergeQueueMetrics?repo=acme/web'))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: querystring/repoHost is required with repo (e.g. repoHost=github.com)',
    });
    for (const repo of ['acme', 'acme/web/x', 'acme%2F', '%20/web']) {
      expect(errorOf(await m.h.get(`/v1/getMergeQueueMetrics?repo=${repo}&repoHost=github.com`)), repo).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
        message: 'Invalid request: querystring/repo must be owner/name, e.g. acme/widgets',
      });
    }
    const empty = errorOf(await m.h.get('/v1/getMergeQueueMetrics?repo=acme/web&repoHost='));
    expect(empty).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(empty.message).toContain('repoHost');
  });

  it('answers 401 without a valid token, with no metric in the body', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await m.h.get('/v1/getMergeQueueMetrics', { 'x-api-token': token });
      expect(errorOf(res)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      expect(res.body).not.toContain('mq_');
    }
  });
});
