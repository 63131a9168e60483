/**
 * POST /webhooks/github fed GitHub's own example payloads (@octokit/webhooks-examples, completed to
 * today's webhook schemas: webhook-examples.ts), each signed for real with the webhook secret; tampered
 * and unsigned deliveries; duplicate delivery ids; a delivery answered before it is processed, and
 * processed again after a failure.
 */
import { sign } from '@octokit/webhooks-methods';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readGitHubDelivery } from '../../../src/forge/github/observations.js';
import { githubForge } from '../../../src/forge/github/index.js';
import { buildHttpApp } from '../../../src/api/build-app.js';
import { ForgeWebhooks } from '../../../src/app/observing/forge-webhooks.js';
import type { QueueKey } from '../../../src/app/service-port.js';
import type { Entry } from '../../../src/engine/types.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { createGitHubHarness, SECRET, type GitHubHarness } from './github-harness.js';
import { gitHubExamples } from './webhook-examples.js';
import type { Json } from '../../helpers/json.js';

type Payload = Record<string, Json>;
const EVENTS = ['pull_request', 'push', 'check_run', 'check_suite', 'status', 'issue_comment'];
const byEvent = new Map(EVENTS.map((e) => [e, gitHubExamples(e) as Payload[]]));
const example = (event: string, action?: string): Payload => {
  const found = byEvent.get(event)!.find((x) => action === undefined || x.action === action);
  if (!found) throw new Error(`no ${event} ${action} example`);
  return structuredClone(found);
};

let h: GitHubHarness;
let key: QueueKey;
let head: string;

beforeEach(async () => {
  const api = new FakeGitHubApi('Codertocat', 'Hello-World');
  const base = api.commit(null, 'base');
  api.branches.set('master', base);
  head = example('pull_request', 'labeled').pull_request.head.sha;
  api.commits.set(head, [base]);
  api.openPr(2, { headSha: head, base: 'master', title: 'Update the README with new information.' });
  // The examples' sender labels the PR: one who may command the queue.
  api.collaborators.set(example('pull_request', 'labeled').sender.login, 'admin');
  h = await createGitHubHarness({ api });
  key = { repo: { host: 'github.com', owner: 'Codertocat', name: 'Hello-World' }, targetBranch: 'master' };
  await h.app.service.createQueue(h.ctx, key, {});
  await h.app.service.updateQueue(h.ctx, key, { enqueueingLabel: 'bug', requiredStatuses: ['default'] });
});
afterEach(() => h.close());

const entry = async (n: number): Promise<Entry> =>
  (await h.app.service.getSubmittedPullRequest(h.ctx, key, { number: n })).entry;
const deliveries = async (): Promise<number> =>
  (await h.db.selectFrom('forge_deliveries').select('id').execute()).length;

describe('POST /webhooks/github', () => {
  it('answers every example delivery of the events it reads with 200 (accepted, then processed, or ignored)', async () => {
    let n = 0;
    let accepted = 0;
    for (const event of EVENTS) {
      for (const payload of byEvent.get(event)!) {
        const res = await h.deliver(event, payload, { id: `example-${++n}` });
        expect(res.status, `${event} ${payload.action ?? ''}`).toBe(200);
        expect(['accepted', 'ignored']).toContain(res.body.result);
        expect(['processed', 'ignored']).toContain(res.result);
        if (res.body.result === 'accepted') accepted++;
      }
    }
    expect(n).toBeGreaterThan(50);
    expect(accepted).toBeGreaterThan(10);
    expect(await deliveries()).toBe(accepted);
  });

  it('refuses unsigned, tampered and wrongly signed deliveries with 401 and processes nothing', async () => {
    const labeled = example('pull_request', 'labeled');
    h.api.clearLog();
    const unsigned = await h.deliver('pull_request', labeled, { signature: null });
    expect(unsigned).toEqual({
      status: 401,
      body: { error: { code: 'WEBHOOK_SIGNATURE_INVALID', message: expect.stringMatching(/missing/) } },
    });
    const tampered = await h.deliver('pull_request', labeled, { tamper: true });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.message).toMatch(/does not match the body/);
    const wrong = await h.deliver('pull_request', labeled, {
      signature: await sign('another secret', JSON.stringify(labeled)),
    });
    expect(wrong.status).toBe(401);
    const garbage = await h.deliver('pull_request', labeled, { signature: 'sha256=zz' });
    expect(garbage.status).toBe(401);
    expect(await deliveries()).toBe(0);
    await expect(entry(2)).rejects.toThrow(/never been submitted/);
    expect(h.api.calls).toHaveLength(0);
  });

  it('a signed body that is not JSON is 400 INVALID_JSON; a delivery without its headers is 400', async () => {
    const body = '{"action": ';
    const res = await h.http.inject({
      method: 'POST',
      url: '/webhooks/github',
      payload: body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': 'd1',
        'x-hub-signature-256': await sign(SECRET, body),
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_JSON');
    const noEvent = await h.http.inject({
      method: 'POST',
      url: '/webhooks/github',
      payload: '{}',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': await sign(SECRET, '{}') },
    });
    expect(noEvent.statusCode).toBe(400);
    expect(noEvent.json().error.message).toMatch(/X-GitHub-Event and X-GitHub-Delivery/);
  });

  it('accepts the form-encoded content type GitHub can be set to', async () => {
    const payload = example('pull_request', 'labeled');
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const res = await h.http.inject({
      method: 'POST',
      url: '/webhooks/github',
      payload: body,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-github-event': 'pull_request',
        'x-github-delivery': 'form-1',
        'x-hub-signature-256': await sign(SECRET, body),
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toBe('accepted');
    await h.webhooks.drain();
    expect((await entry(2)).state).not.toBe('CANCELLED');
  });

  it('the enqueueing label submits the PR once, even when the delivery comes twice; converted_to_draft cancels it', async () => {
    const labeled = example('pull_request', 'labeled');
    expect((await h.deliver('pull_request', labeled, { id: 'same' })).result).toBe('processed');
    expect((await h.deliver('pull_request', labeled, { id: 'same' })).body).toEqual({
      delivery: 'same',
      event: 'pull_request',
      result: 'duplicate',
    });
    const e = await entry(2);
    expect(e.timeline.filter((t) => t.reason === 'USER_REQUESTED')).toHaveLength(1);
    expect(e.timeline[0]).toMatchObject({ from: null, reason: 'USER_REQUESTED' });
    await h.deliver('pull_request', example('pull_request', 'converted_to_draft'));
    expect(await entry(2)).toMatchObject({ state: 'CANCELLED', lastReason: 'PR_CONVERTED_TO_DRAFT' });
  });

  it('answers before processing finishes: the delivery is stored, and processed in the background', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const applied: string[] = [];
    const webhooks = new ForgeWebhooks({
      db: h.db,
      clock: h.clock,
      forge: 'github',
      translate: readGitHubDelivery,
      observations: {
        async apply(_repo, _queues, o) {
          applied.push(o.kind);
          await held; // a slow observation: rate-limit waits, a slow GitHub
          return true;
        },
      },
    });
    const http = await buildHttpApp({
      service: h.app.service,
      logger: false,
      enumCase: 'upper',
      forgeWebhooks: [{ webhook: githubForge.webhook!, secret: SECRET, receive: webhooks.receive }],
    });
    webhooks.start();
    try {
      const body = JSON.stringify(example('pull_request', 'labeled'));
      const res = await http.inject({
        method: 'POST',
        url: '/webhooks/github',
        payload: body,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-github-delivery': 'slow-1',
          'x-hub-signature-256': await sign(SECRET, body),
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ delivery: 'slow-1', event: 'pull_request', result: 'accepted' });
      await vi.waitFor(() => expect(applied).toEqual(['prLabel']));
      const row = () => h.db.selectFrom('forge_deliveries').selectAll().where('id', '=', 'slow-1').executeTakeFirst();
      expect(await row()).toMatchObject({ status: 'pending', event: 'pull_request' });
      release();
      await vi.waitFor(async () =>
        expect(await row()).toMatchObject({ status: 'done', result: 'processed', payload: null }),
      );
    } finally {
      release();
      await webhooks.stop();
      await http.close();
    }
  });

  it('a delivery whose processing fails is tried again later, not lost', async () => {
    // GitHub answers 502 to every try of the PR's read (the client's own retries included).
    h.api.failNext('GET', /\/pulls\/2$/, 502, { message: 'Server Error' }, {}, 4);
    const res = await h.deliver('pull_request', example('pull_request', 'labeled'), { id: 'flaky' });
    expect(res).toMatchObject({ status: 200, body: { result: 'accepted' }, result: 'pending' });
    const row = () => h.db.selectFrom('forge_deliveries').selectAll().where('id', '=', 'flaky').executeTakeFirst();
    expect(await row()).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: expect.stringMatching(/502|Server Error/),
    });
    await expect(entry(2)).rejects.toThrow(/never been submitted/);
    await h.webhooks.drain(); // not due yet
    expect(await row()).toMatchObject({ attempts: 1 });
    h.clock.advance(5_000);
    await h.webhooks.drain();
    expect(await row()).toMatchObject({ status: 'done', attempts: 2, result: 'processed', last_error: null });
    expect((await entry(2)).timeline.filter((t) => t.reason === 'USER_REQUESTED')).toHaveLength(1);
    // A redelivery of the same id changes nothing.
    expect((await h.deliver('pull_request', example('pull_request', 'labeled'), { id: 'flaky' })).result).toBe(
      'duplicate',
    );
  });

  it("a delivery that meets GitHub's rate limit waits until it resets, its attempt not counted", async () => {
    h.api.failNext('GET', /\/pulls\/2$/, 429, { message: 'Too Many Requests' }, { 'retry-after': '7' });
    const res = await h.deliver('pull_request', example('pull_request', 'labeled'), { id: 'limited' });
    expect(res).toMatchObject({ status: 200, body: { result: 'accepted' } });
    const row = () => h.db.selectFrom('forge_deliveries').selectAll().where('id', '=', 'limited').executeTakeFirst();
    const limitedAt = h.clock.now();
    await vi.waitFor(async () => expect(await row()).toMatchObject({ status: 'pending', attempts: 0 }));
    expect(Number((await row())!.next_attempt_at)).toBeGreaterThanOrEqual(limitedAt + 7_000);
    h.clock.advance(5_000);
    await h.webhooks.drain(); // the failure schedule's 5 s would be due; the rate limit is not over
    expect(await row()).toMatchObject({ status: 'pending', attempts: 0 });
    h.clock.advance(2_000);
    await h.webhooks.drain();
    expect(await row()).toMatchObject({ status: 'done', attempts: 1, result: 'processed', last_error: null });
  });

  it('unlabeled takes the PR out; closed without merge cancels with PR_CLOSED', async () => {
    await h.deliver('pull_request', example('pull_request', 'labeled'));
    await h.deliver('pull_request', example('pull_request', 'unlabeled'));
    expect(await entry(2)).toMatchObject({ state: 'CANCELLED', lastReason: 'USER_REQUESTED' });
    await h.deliver('pull_request', example('pull_request', 'labeled'));
    expect((await entry(2)).state).not.toBe('CANCELLED');
    await h.deliver('pull_request', example('pull_request', 'closed'));
    expect(await entry(2)).toMatchObject({ state: 'CANCELLED', lastReason: 'PR_CLOSED' });
  });

  it('comment commands: /greenline merge with options submits, /trunk cancel cancels, a bad command gets a reply', async () => {
    const comment = (body: string): Payload => {
      const p = example('issue_comment', 'created');
      p.issue.number = 2;
      p.issue.pull_request = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/2' };
      p.comment.body = body;
      return p;
    };
    expect(
      (await h.deliver('issue_comment', comment('Looks good.\n/greenline merge --priority high --no-batch'))).result,
    ).toBe('processed');
    expect(await entry(2)).toMatchObject({ priorityName: 'high', noBatch: true, lastReason: expect.any(String) });
    await h.deliver('issue_comment', comment('/trunk cancel'));
    expect(await entry(2)).toMatchObject({ state: 'CANCELLED', lastReason: 'USER_REQUESTED' });
    h.api.clearLog();
    await h.deliver('issue_comment', comment('/greenline merge --fast'));
    expect(h.api.comments.at(-1)!.body).toBe(
      '@Codertocat greenline could not do that: unknown option --fast of /greenline merge: use --priority P, --no-batch and --message "…"',
    );
    await h.deliver('issue_comment', comment('/greenline merge -p someday'));
    expect(h.api.comments.at(-1)!.body).toMatch(/^@Codertocat greenline could not do that: .*priority/);
    // Plain comments and comments on issues are not commands.
    expect((await h.deliver('issue_comment', comment('merge it please'))).result).toBe('ignored');
    expect((await h.deliver('issue_comment', example('issue_comment', 'created'))).result).toBe('ignored');
  });

  it('a status on the test commit decides the run: the example status, pointed at the test sha, merges the PR', async () => {
    await h.deliver('pull_request', example('pull_request', 'labeled'));
    await h.runEffects();
    const e = await entry(2);
    expect(e.state).toBe('TESTING');
    const run = await h.app.service.getTestingDetails(h.ctx, key, e.runId!);
    const status = example('status');
    status.sha = run.run.testSha;
    status.state = 'success';
    expect((await h.deliver('status', status)).result).toBe('processed');
    await h.runEffects();
    expect((await entry(2)).state).toBe('MERGED');
    expect(h.api.pulls.get(2)!.merged).toBe(true);
    // The same status on a commit that is no test commit is ignored.
    expect((await h.deliver('status', example('status'))).result).toBe('ignored');
  });

  it('check_suite completed reads the check runs of the test commit (catching up on a missed check_run)', async () => {
    await h.app.service.updateQueue(h.ctx, key, { requiredStatuses: ['Octocoders-linter'] });
    await h.deliver('pull_request', example('pull_request', 'labeled'));
    await h.runEffects();
    const run = await h.app.service.getTestingDetails(h.ctx, key, (await entry(2)).runId!);
    h.api.checkRuns.push({
      id: 1,
      name: 'Octocoders-linter',
      head_sha: run.run.testSha!,
      status: 'completed',
      conclusion: 'failure',
    });
    const suite = example('check_suite', 'completed');
    suite.check_suite.head_sha = run.run.testSha;
    expect((await h.deliver('check_suite', suite)).result).toBe('processed');
    await h.runEffects();
    expect(await entry(2)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  });

  it("a push to the target branch moves the queue's target; deliveries for other repositories are ignored", async () => {
    const moved = h.api.commit(h.api.branches.get('master')!, 'outside');
    h.api.branches.set('master', moved);
    const push = byEvent.get('push')!.find((p) => p.ref === 'refs/heads/master')!;
    expect((await h.deliver('push', push)).result).toBe('processed');
    expect((await h.app.service.getQueue(h.ctx, key)).snapshot.targetSha).toBe(moved);
    const other = example('pull_request', 'labeled');
    other.repository.name = 'Other';
    other.repository.html_url = 'https://github.com/Codertocat/Other';
    expect((await h.deliver('pull_request', other)).result).toBe('ignored');
  });
});
