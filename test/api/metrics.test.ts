import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, type ApiHarness } from './api-harness.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(1);
  await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }));
  await h.t.runEffects();
});
afterEach(() => h.close());

describe('GET /v1/getMergeQueueMetrics', () => {
  it("answers the organization's metrics in Prometheus text 0.0.4", async () => {
    const res = await h.get('/v1/getMergeQueueMetrics');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toMatch(/^mq_testing_slots_active\{[^}]*repo="acme\/web"[^}]*\} 1$/m);
  });

  it('answers one repository with repo and repoHost', async () => {
    const res = await h.get('/v1/getMergeQueueMetrics?repo=acme/web&repoHost=github.com');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toContain('repo="acme/web"');
  });

  it('refuses repo without repoHost, a malformed repo, and a repeated one', async () => {
    expect(errorOf(await h.get('/v1/getMergeQueueMetrics?repo=acme/web'))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: querystring/repoHost is required with repo (e.g. repoHost=github.com)',
    });
    for (const repo of ['acme', 'acme/web/extra', '/web', 'acme/']) {
      expect(errorOf(await h.get(`/v1/getMergeQueueMetrics?repo=${repo}&repoHost=github.com`)), repo).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
        message: 'Invalid request: querystring/repo must be owner/name, e.g. acme/widgets',
      });
    }
    expect(errorOf(await h.get('/v1/getMergeQueueMetrics?repo=a/b&repo=c/d&repoHost=github.com')).status).toBe(400);
  });

  it('answers 404 for a repository that is not connected to the organization', async () => {
    expect(errorOf(await h.get('/v1/getMergeQueueMetrics?repo=acme/other&repoHost=github.com'))).toMatchObject({
      status: 404,
      code: 'REPO_NOT_FOUND',
    });
  });
});
