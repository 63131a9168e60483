/**
 * The dashboard's extension endpoints in process (fake forge and CI, SQLite in memory): listQueues,
 * getQueueActivity, getQueueHistory, the server-sent events of streamQueueEvents over real HTTP, and
 * the dashboard's static files.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GreenlineClient } from '../../src/client/index.js';
import { createApiToken } from '../../src/app/admin/tokens.js';
import { WEB_DIR } from '../../src/api/web-assets.js';
import { listApiTokens, revokeApiToken } from '../../src/store/api-tokens.js';
import { createApiHarness, errorOf, json, REPO, SLUG, type ApiHarness } from './api-harness.js';
import type { Json } from '../helpers/json.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
});
afterEach(() => h.close());

const submit = (n: number) => h.post('/v1/submitPullRequest', h.body({ pr: { number: n } }));

/** Submits PRs 1..n and runs effects until their test runs started. */
async function queueOf(n: number, settings: Record<string, unknown> = {}): Promise<void> {
  await h.queueWithPrs(n);
  if (Object.keys(settings).length > 0)
    expect((await h.post('/v1/updateQueue', h.body(settings))).statusCode).toBe(200);
  for (let i = 1; i <= n; i++) expect((await submit(i)).statusCode).toBe(200);
  await h.t.runEffects();
}

describe('POST /v1/listQueues', () => {
  it('lists no queues before one is created, then each with state, mode, depth and throughput', async () => {
    expect(json(await h.post('/v1/listQueues', {}))).toEqual({ queues: [] });
    await queueOf(3, { concurrency: 2 });
    const [runId] = h.t.ci.startedRunIds();
    await h.t.ci.pass(runId!);
    await h.t.runEffects();
    const res = await h.post('/v1/listQueues', {});
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).queues).toEqual([
      {
        repo: REPO,
        targetBranch: 'main',
        state: 'RUNNING',
        mode: 'single',
        concurrency: 2,
        batch: false,
        depth: 2,
        notReady: 0,
        testing: 2,
        mergedLastHour: 1,
        failedLastHour: 0,
        managedBy: null,
        driftSince: null,
      },
    ]);
  });

  it('answers 401 without a valid token', async () => {
    expect(errorOf(await h.post('/v1/listQueues', {}, { 'x-api-token': 'gl_wrong' }))).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
  });

  it("does not list another organization's queues", async () => {
    await queueOf(1);
    const other = await h.t.createOrg('other');
    expect(json(await h.post('/v1/listQueues', {}, { 'x-api-token': other.token }))).toEqual({ queues: [] });
  });
});

describe('POST /v1/getQueueActivity', () => {
  it('lists PRs in queue order and the runs in flight with the PRs each includes', async () => {
    await queueOf(3, { concurrency: 2 });
    const res = await h.post('/v1/getQueueActivity', h.body());
    expect(res.statusCode, res.body).toBe(200);
    const a = json(res);
    expect(a).toMatchObject({ state: 'RUNNING', mode: 'single', concurrency: 2, batch: false, recentPullRequests: [] });
    expect(a.pullRequests.map((p: Json) => [p.prNumber, p.state, p.lane])).toEqual([
      [1, 'TESTING', null],
      [2, 'TESTING', null],
      [3, 'PENDING', null],
    ]);
    expect(a.pullRequests[0]).toMatchObject({
      prTitle: 'Change 1',
      priorityName: 'medium',
      reason: 'TEST_RUN_STARTED',
    });
    expect(a.pullRequests[0].admittedAt).toEqual(expect.any(String));
    expect(a.testRuns.map((r: Json) => [r.prNumbers, r.dependentPrs, r.queueType])).toEqual([
      [[1], [], 'main'],
      [[2], [1], 'main'],
    ]);
    expect(a.testRuns[1].testRunId).toBe(a.pullRequests[1].testRunId);
  });

  it('lists concluded PRs, latest first, with the reason', async () => {
    await queueOf(2);
    await h.t.ci.fail(h.t.ci.startedRunIds()[0]!);
    await h.t.runEffects();
    const a = json(await h.post('/v1/getQueueActivity', h.body()));
    expect(a.recentPullRequests).toEqual([
      expect.objectContaining({ prNumber: 1, state: 'FAILED', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' }),
    ]);
  });

  it('gives each PR and run its lane in parallel mode', async () => {
    await h.queueWithPrs(3);
    await h.post('/v1/updateQueue', h.body({ mode: 'parallel', concurrency: 3 }));
    for (const [n, target] of [
      [1, 'web'],
      [2, 'api'],
      [3, 'web'],
    ] as const) {
      const pr = h.t.forge.state(SLUG).prs.get(n);
      expect(
        (
          await h.post(
            '/v1/setImpactedTargets',
            h.body({ pr: { number: n, sha: pr!.headSha }, impactedTargets: [target] }),
          )
        ).statusCode,
      ).toBe(200);
      await submit(n);
    }
    await h.t.runEffects();
    const a = json(await h.post('/v1/getQueueActivity', h.body()));
    expect(a.mode).toBe('parallel');
    expect(a.pullRequests.map((p: Json) => [p.prNumber, p.lane])).toEqual([
      [1, 1],
      [2, 2],
      [3, 1],
    ]);
    expect(a.testRuns.map((r: Json) => [r.prNumbers, r.dependentPrs, r.lane])).toEqual([
      [[1], [], 1],
      [[2], [], 2],
      [[3], [1], 1],
    ]);
  });

  it('answers 404 for a queue that does not exist', async () => {
    expect(errorOf(await h.post('/v1/getQueueActivity', h.body({ targetBranch: 'nope' })))).toMatchObject({
      status: 404,
      code: 'QUEUE_NOT_FOUND',
    });
  });
});

describe('POST /v1/getQueueHistory', () => {
  it('counts conclusions, time in queue and CI runs per merge by clock hour', async () => {
    await queueOf(2);
    h.t.clock.advance(60_000);
    await h.t.ci.pass(h.t.ci.startedRunIds()[0]!);
    await h.t.runEffects();
    h.t.clock.advance(60_000);
    await h.t.ci.pass(h.t.ci.startedRunIds()[1]!);
    await h.t.runEffects();
    const res = await h.post('/v1/getQueueHistory', h.body({ hours: 3 }));
    expect(res.statusCode, res.body).toBe(200);
    const history = json(res);
    expect(history.hours).toHaveLength(3);
    expect(history.total).toEqual({
      merged: 2,
      failed: 0,
      cancelled: 0,
      timeInQueueP50Seconds: 60,
      timeInQueueP95Seconds: 120,
      ciRuns: 2,
      ciRunsPerMerge: 1,
    });
    const merged = history.hours.map((b: Json) => b.merged);
    expect(merged.reduce((a: number, b: number) => a + b, 0)).toBe(2);
    expect(Date.parse(history.hours[2].start) % 3_600_000).toBe(0);
  });

  it('answers empty hours without conclusions with nulls, not zeros', async () => {
    await h.queueWithPrs(0);
    const history = json(await h.post('/v1/getQueueHistory', h.body()));
    expect(history.hours).toHaveLength(24);
    expect(history.total).toEqual({
      merged: 0,
      failed: 0,
      cancelled: 0,
      timeInQueueP50Seconds: null,
      timeInQueueP95Seconds: null,
      ciRuns: 0,
      ciRunsPerMerge: null,
    });
  });

  it('refuses hours outside 1..168 with a 400 naming the field', async () => {
    await h.queueWithPrs(0);
    for (const hours of [0, 169, 1.5, '24']) {
      const err = errorOf(await h.post('/v1/getQueueHistory', h.body({ hours })));
      expect(err.status).toBe(400);
      expect(err.message).toContain('hours');
    }
  });
});

describe('GET /v1/streamQueueEvents', () => {
  /** Listens on a free port; returns the base URL. */
  async function listen(): Promise<string> {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    return `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  }

  /** Reads server-sent events from a response body, one `{ event, data }` at a time. */
  function events(body: NonNullable<Response['body']>) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    return async (): Promise<{ event: string; data: Json }> => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (!data) continue;
          return {
            event:
              lines
                .find((l) => l.startsWith('event:'))
                ?.slice(6)
                .trim() ?? 'message',
            data: JSON.parse(data),
          };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += value;
      }
    };
  }

  const query = '?repo=acme/web&repoHost=github.com&targetBranch=main';

  it('sends the activity at once and again after each change, with the token in the header', async () => {
    await h.queueWithPrs(2);
    const base = await listen();
    const controller = new AbortController();
    const res = await fetch(`${base}/v1/streamQueueEvents${query}`, {
      headers: { 'x-api-token': h.token },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const next = events(res.body!);
    const first = await next();
    expect(first.event).toBe('activity');
    expect(first.data.pullRequests).toEqual([]);
    await submit(1);
    await h.t.runEffects();
    // Each committed change sends an event; which intermediate states (e.g. the run still creating its
    // test commit) an event shows depends on when the stream reads them, so wait for the PR to test.
    let seen = await next();
    while (seen.data.pullRequests[0]?.state !== 'TESTING') seen = await next();
    expect(seen.data.pullRequests[0]).toMatchObject({ prNumber: 1, state: 'TESTING' });
    expect(seen.data.testRuns[0]).toMatchObject({ prNumbers: [1], status: 'in_progress' });
    controller.abort();
  });

  it('answers 401 without a token and 404 for an unknown queue, as JSON errors', async () => {
    await h.queueWithPrs(0);
    const base = await listen();
    const anonymous = await fetch(`${base}/v1/streamQueueEvents${query}`);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('UNAUTHORIZED');
    const unknown = await fetch(`${base}/v1/streamQueueEvents?repo=acme/web&repoHost=github.com&targetBranch=nope`, {
      headers: { 'x-api-token': h.token },
    });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('QUEUE_NOT_FOUND');
    const bad = await fetch(`${base}/v1/streamQueueEvents?repo=web&repoHost=github.com&targetBranch=main`, {
      headers: { 'x-api-token': h.token },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain('repo');
  });

  it('is read by the SDK as an async iterator of activities', async () => {
    await h.queueWithPrs(1);
    const client = new GreenlineClient({ url: await listen(), token: h.token });
    const controller = new AbortController();
    const seen: number[] = [];
    for await (const activity of client.streamQueueEvents(
      { repo: 'acme/web', repoHost: 'github.com', targetBranch: 'main' },
      { signal: controller.signal },
    )) {
      seen.push(activity.pullRequests.length);
      if (seen.length === 1) await submit(1);
      if (activity.pullRequests.length > 0) break;
    }
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(1);
    expect((await client.listQueues()).queues).toHaveLength(1);
  });

  it('ends the stream at the next change once its token is revoked', async () => {
    await h.queueWithPrs(1);
    const base = await listen();
    const orgId = (await listApiTokens(h.t.db))[0]!.org_id;
    const viewer = await createApiToken(h.t.db, orgId, 'viewer', Date.now());
    const res = await fetch(`${base}/v1/streamQueueEvents${query}`, { headers: { 'x-api-token': viewer.token } });
    const next = events(res.body!);
    expect((await next()).event).toBe('activity');
    expect(await revokeApiToken(h.t.db, viewer.id, Date.now())).toBe(true);
    h.t.clock.advance(60_000); // past the server's memory of valid tokens
    expect((await submit(1)).statusCode).toBe(200);
    await expect(next()).rejects.toThrow('the stream ended');
  });

  it('ends open streams when the server closes', async () => {
    await h.queueWithPrs(0);
    const base = await listen();
    const res = await fetch(`${base}/v1/streamQueueEvents${query}`, { headers: { 'x-api-token': h.token } });
    const next = events(res.body!);
    await next();
    await h.app.close();
    await expect(next()).rejects.toThrow();
  });
});

describe('the dashboard files', () => {
  it('serves the page at / with a same-origin content security policy, and its modules', async () => {
    const page = await h.get('/', { 'x-api-token': undefined });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.body).toContain('/dashboard/app.js');
    // Every file of web/, those of its folders included: a module the server does not serve breaks the
    // page that imports it.
    const files = readdirSync(WEB_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => path.extname(f) !== '');
    expect(files).toEqual(expect.arrayContaining(['app.js', 'graph/layout.js', 'pages/pr.js', 'settings/changes.js']));
    for (const file of files) {
      const res = await h.get(`/dashboard/${file}`, { 'x-api-token': undefined });
      expect(res.statusCode, file).toBe(200);
    }
    expect((await h.get('/dashboard/app.js')).headers['content-type']).toContain('text/javascript');
  });

  it('answers 404 for a file it does not have', async () => {
    expect(errorOf(await h.get('/dashboard/..%2Fpackage.json'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(errorOf(await h.get('/dashboard/missing.js'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(errorOf(await h.get('/dashboard/pages/missing.js'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(errorOf(await h.get('/dashboard/pages/..%2Fapp.js'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(errorOf(await h.get('/dashboard/pages/..%2F..%2Fpackage.json'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('serves the browser modules of eventsource-parser, which api.js imports, and nothing else of node_modules', async () => {
    const api = await h.get('/dashboard/api.js', { 'x-api-token': undefined });
    expect(api.body).toContain("from 'eventsource-parser'");
    for (const file of ['index.js', 'stream.js']) {
      const res = await h.get(`/dashboard/vendor/eventsource-parser/${file}`, { 'x-api-token': undefined });
      expect(res.statusCode, file).toBe(200);
      expect(res.headers['content-type']).toContain('text/javascript');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    }
    expect((await h.get('/dashboard/vendor/eventsource-parser/index.js')).body).toContain('createParser');
    expect(errorOf(await h.get('/dashboard/vendor/eventsource-parser/index.d.ts'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    expect(errorOf(await h.get('/dashboard/vendor/eventsource-parser/..%2Fpackage.json'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    expect(errorOf(await h.get('/dashboard/vendor/yaml/index.js'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it("serves Preact, its hooks, htm and eventsource-parser under the import map's addresses, and lets only that inline script run", async () => {
    const page = await h.get('/', { 'x-api-token': undefined });
    const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page.body)?.[1];
    expect(importMap).toBeDefined();
    const { imports } = JSON.parse(importMap!) as { imports: Record<string, string> };
    expect(Object.keys(imports).sort()).toEqual(['eventsource-parser', 'htm', 'preact', 'preact/hooks']);
    for (const address of Object.values(imports)) {
      const res = await h.get(address, { 'x-api-token': undefined });
      expect(res.statusCode, address).toBe(200);
      expect(res.headers['content-type']).toContain('text/javascript');
    }
    const hash = createHash('sha256').update(importMap!).digest('base64');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(csp).not.toContain('unsafe-inline');
  });
});
