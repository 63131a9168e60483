/**
 * What the fake of GitHub does around every answer, as GitHub documents it: owner/repo in any letter
 * case, pages with `Link`, primary and secondary rate limits with their headers, ETag and 304, and
 * server errors after a write took effect.
 */
import { describe, expect, it } from 'vitest';
import { FakeGitHubApi } from './fake-github-api.js';

function repo(): FakeGitHubApi {
  const api = new FakeGitHubApi('Acme', 'Web');
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  api.openPr(1, { headSha: api.commit(base, 'one') });
  return api;
}

const get = (api: FakeGitHubApi, path: string, headers: Record<string, string> = {}) =>
  api.fetch(`${api.baseUrl}${path}`, { headers: { authorization: 'token ghp_test', ...headers } });

describe('the fake GitHub around its answers', () => {
  it('owner and repo in any letter case reach the repository; answers spell it canonically', async () => {
    const api = repo();
    const res = await get(api, '/repos/acme/web/pulls/1');
    expect(res.status).toBe(200);
    const pr = (await res.json()) as { base: { repo: { full_name: string } }; number: number };
    expect(pr.number).toBe(1);
    expect(pr.base.repo.full_name).toBe('Acme/Web');
  });

  it('lists come in pages of 30 by default, at most 100, with a Link header as GitHub writes it', async () => {
    const api = repo();
    for (let i = 0; i < 75; i++) api.comments.push({ id: 1 + i, issue: 1, body: `comment ${i}` });
    const first = await get(api, '/repos/Acme/Web/issues/1/comments');
    expect(((await first.json()) as unknown[]).length).toBe(30);
    const at = (q: string) => `<${api.baseUrl}/repos/Acme/Web/issues/1/comments?${q}>`;
    expect(first.headers.get('link')).toBe(`${at('page=2')}; rel="next", ${at('page=3')}; rel="last"`);
    const second = await get(api, '/repos/Acme/Web/issues/1/comments?per_page=50&page=2');
    expect(((await second.json()) as { id: number }[]).map((c) => c.id)).toEqual(
      Array.from({ length: 25 }, (_, i) => 51 + i),
    );
    expect(second.headers.get('link')).toBe(
      `${at('per_page=50&page=1')}; rel="prev", ${at('per_page=50&page=1')}; rel="first"`,
    );
  });

  it('every answer carries the rate-limit headers; the budget runs out with a 403 and renews on the hour', async () => {
    const api = repo();
    let now = Date.UTC(2026, 0, 5, 9);
    api.now = () => now;
    api.rateLimit = 2;
    const one = await get(api, '/repos/Acme/Web/pulls/1');
    expect(Object.fromEntries([...one.headers].filter(([k]) => k.startsWith('x-ratelimit')))).toEqual({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-used': '1',
      'x-ratelimit-reset': String((now + 3600_000) / 1000),
      'x-ratelimit-resource': 'core',
    });
    await get(api, '/repos/Acme/Web/pulls/1');
    const refused = await get(api, '/repos/Acme/Web/pulls/1');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(((await refused.json()) as { message: string }).message).toMatch(/^API rate limit exceeded for user ID/);
    expect(api.billable).toBe(2);
    now += 3600_000;
    expect((await get(api, '/repos/Acme/Web/pulls/1')).status).toBe(200);
  });

  it('a secondary rate limit answers 403 or 429 with retry-after', async () => {
    const api = repo();
    api.secondaryLimitNext('GET', /pulls\/1$/, 30, 429);
    const res = await get(api, '/repos/Acme/Web/pulls/1');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(((await res.json()) as { message: string }).message).toMatch(/secondary rate limit/);
  });

  it('a GET answer has an ETag; asking again with If-None-Match is a 304 that costs nothing', async () => {
    const api = repo();
    const etag = (await get(api, '/repos/Acme/Web/pulls/1')).headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await get(api, '/repos/Acme/Web/pulls/1', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(api.billable).toBe(1);
    api.pulls.get(1)!.title = 'changed';
    expect((await get(api, '/repos/Acme/Web/pulls/1', { 'if-none-match': etag })).status).toBe(200);
  });

  it('failAfterEffect: the write happens, and the answer is a 502 all the same', async () => {
    const api = repo();
    api.failAfterEffect('POST', /issues\/1\/comments$/);
    const res = await api.fetch(`${api.baseUrl}/repos/Acme/Web/issues/1/comments`, {
      method: 'POST',
      headers: { authorization: 'token ghp_test' },
      body: JSON.stringify({ body: 'hello' }),
    });
    expect(res.status).toBe(502);
    expect(api.comments.map((c) => c.body)).toEqual(['hello']);
  });

  it("a commit's combined status says its state, from the latest status of each context", async () => {
    const api = repo();
    const sha = api.branches.get('main')!;
    const combined = async () =>
      ((await (await get(api, `/repos/Acme/Web/commits/${sha}/status`)).json()) as { state: string }).state;
    expect(await combined()).toBe('pending');
    api.statuses.push({ sha, context: 'build', state: 'failure' }, { sha, context: 'lint', state: 'success' });
    expect(await combined()).toBe('failure');
    api.statuses.push({ sha, context: 'build', state: 'success' });
    expect(await combined()).toBe('success');
  });
});
