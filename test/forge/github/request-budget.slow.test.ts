/**
 * The github forge's request budget against the FAKE GitHub API: conditional requests (ETag, 304),
 * waiting for the rate limit's reset instead of failing, and the answers reported for metrics.
 */
import { describe, expect, it } from 'vitest';
import type { GitHubResponseSeen } from '../../../src/forge/github/request-budget.js';
import type { ForgePoller } from '../../../src/app/observing/forge-poller.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { OperatorMetrics } from '../../../src/metrics/operator-metrics.js';
import { ForgeRateLimitedError } from '../../../src/forge/port.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { bindingFor, createGitHubHarness, makeForge, pollerOf } from './github-harness.js';

function repoWithPr(): { api: FakeGitHubApi; base: string } {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  api.openPr(1, { headSha: api.commit(base, 'one') });
  return { api, base };
}

describe('github forge: request budget', () => {
  it('reads are conditional: unchanged answers are 304 (free) and served from the cache, changed ones are read anew', async () => {
    const { api } = repoWithPr();
    const seen: GitHubResponseSeen[] = [];
    const forge = makeForge(api, { onResponse: (r) => seen.push(r) });
    const binding = bindingFor(api);
    const first = await forge.getPullRequest(binding, 1);
    expect(await forge.getPullRequest(binding, 1)).toEqual(first);
    api.pulls.get(1)!.title = 'A better title';
    expect((await forge.getPullRequest(binding, 1))?.title).toBe('A better title');
    expect(await forge.getPullRequest(binding, 1)).toMatchObject({ title: 'A better title' });
    expect(api.calls.map((c) => `${c.status} ${c.method} ${c.path}`)).toEqual([
      '200 GET /repos/acme/web/pulls/1',
      '304 GET /repos/acme/web/pulls/1',
      '200 GET /repos/acme/web/pulls/1',
      '304 GET /repos/acme/web/pulls/1',
    ]);
    expect(seen.map((r) => `${r.client} ${r.method} ${r.status}`)).toEqual([
      'token GET 200',
      'token GET 304',
      'token GET 200',
      'token GET 304',
    ]);
  });

  it('metrics: requests by method and status class, and the budget left of each client', async () => {
    const { api } = repoWithPr();
    const metrics = new OperatorMetrics();
    const forge = makeForge(api, { onResponse: (a) => metrics.observeGitHub(a) });
    api.failNext('GET', /pulls\/1$/, 404, { message: 'Not Found' });
    await forge.getPullRequest(bindingFor(api), 1);
    await forge.getPullRequest(bindingFor(api), 1);
    await forge.getPullRequest(bindingFor(api), 1);
    await forge.reply(bindingFor(api), 1, 'hello');
    const text = await metrics.render();
    expect(text).toContain('greenline_github_requests_total{method="GET",status="4xx"} 1');
    expect(text).toContain('greenline_github_requests_total{method="GET",status="2xx"} 1');
    expect(text).toContain('greenline_github_requests_total{method="GET",status="3xx"} 1');
    expect(text).toContain('greenline_github_requests_total{method="POST",status="2xx"} 1');
    // As GitHub's last answer said: 5000 an hour, three requests billed (the 404, the 200, the POST; a 304 is free).
    expect(text).toContain('greenline_github_rate_limit_remaining{client="token"} 4997');
  });

  it('with the budget down to its reserve, nothing is sent until the reset: the caller is told when to try again', async () => {
    const { api } = repoWithPr();
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
    const forge = makeForge(api, { clock, rateLimitReserve: 10 });
    const reset = clock.now() / 1000 + 1800;
    const seen: GitHubResponseSeen[] = [];
    const withBudget = makeForge(api, { clock, onResponse: (r) => seen.push(r) });
    for (const f of [forge, withBudget]) {
      api.failNext(
        'GET',
        /git\/ref\/heads\/main$/,
        200,
        { ref: 'refs/heads/main', object: { sha: 'a'.repeat(40) } },
        {
          'x-ratelimit-remaining': '7',
          'x-ratelimit-reset': String(reset),
        },
      );
      await f.getBranchSha(bindingFor(api), 'main');
    }
    expect(seen.at(-1)).toMatchObject({ remaining: 7 });
    api.clearLog();
    const refused = await forge.getPullRequest(bindingFor(api), 1).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ForgeRateLimitedError);
    expect(refused).toMatchObject({ retryAt: reset * 1000, message: expect.stringMatching(/request budget/) });
    expect(api.calls).toEqual([]);
    clock.set(reset * 1000);
    expect((await forge.getPullRequest(bindingFor(api), 1))?.number).toBe(1);
    expect(api.log).toEqual(['GET /repos/acme/web/pulls/1']);
  });

  it('an effect that meets a spent budget waits for the reset, its attempt not counted, and then runs', async () => {
    const h = await createGitHubHarness({ api: repoWithPr().api });
    try {
      h.clock.set(Date.now());
      h.api.requiredChecks.set('main', ['build']);
      await h.app.service.createQueue(h.ctx, h.key, {});
      const reset = Math.floor(Date.now() / 1000) + 3600;
      h.api.failNext(
        'POST',
        /\/merges$/,
        403,
        { message: 'API rate limit exceeded for installation ID 1.' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      );
      await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
      await h.runEffects();
      const effect = await h.db
        .selectFrom('effects')
        .selectAll()
        .where('kind', '=', 'createTestBranch')
        .executeTakeFirstOrThrow();
      expect(effect).toMatchObject({ status: 'pending', run_at: reset * 1000, attempts: 0 });
      expect(effect.last_error).toMatch(/rate-limited token until .*API rate limit exceeded/);
      h.clock.set(reset * 1000);
      await h.runEffects();
      const { entry } = await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 });
      expect(entry.state).toBe('TESTING');
    } finally {
      await h.close();
    }
  });

  it('with webhooks, polling is a safety net that backs off while it finds nothing new; without, every interval reads', async () => {
    const h = await createGitHubHarness({ api: repoWithPr().api });
    try {
      await h.app.service.createQueue(h.ctx, h.key, {});
      await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
      const poller = (webhookForges: ('git' | 'github')[]) =>
        pollerOf(h, { intervalMs: 15_000, safetyNetMaxMs: 300_000, webhookForges });
      /** Polls every 15 s for `ticks` intervals; the seconds (from the first) at which PR 1 was read. */
      const readsOver = async (p: ForgePoller, ticks: number): Promise<number[]> => {
        const start = h.clock.now();
        const at: number[] = [];
        for (let i = 0; i < ticks; i++) {
          h.api.clearLog();
          await p.pollOnce();
          if (h.api.log.includes('GET /repos/acme/web/pulls/1')) at.push((h.clock.now() - start) / 1000);
          h.clock.advance(15_000);
        }
        return at;
      };
      expect(await readsOver(poller([]), 5)).toEqual([0, 15, 30, 45, 60]);
      const safetyNet = poller(['github']);
      // Waits of 15, 30, 60, 120, 240 s, then at most 300 s.
      expect(await readsOver(safetyNet, 61)).toEqual([0, 15, 45, 105, 225, 465, 765]);
      // A change found at the next read (here: the PR's title, 150 s on) brings the wait back to the interval.
      h.api.pulls.get(1)!.title = 'Renamed';
      expect(await readsOver(safetyNet, 16)).toEqual([150, 165, 195]);
    } finally {
      await h.close();
    }
  });
});
