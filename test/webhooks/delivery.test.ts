/**
 * Webhook delivery end to end over the real service (fake forge and CI, real store): events of PRs
 * driven through a queue are fanned out to a subscription and POSTed to a real HTTP receiver, which
 * verifies each with the standardwebhooks package. The delivery worker runs on the fake clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../src/app/service-port.js';
import { UrlPolicy } from '../../src/delivery/url-policy.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { webhookOutbox } from '../../src/webhooks/outbox.js';
import { createQueueFixture, type QueueFixture, type TestService } from '../helpers/service.js';
import { Receiver } from './receiver.js';
import type { Json } from '../helpers/json.js';

const REPO = 'github.com/acme/web';
const SECOND = 1_000;

let receiver: Receiver;
let f: QueueFixture | null = null;
afterEach(async () => {
  await receiver?.close();
  await f?.t.close();
  f = null;
});

async function setUp(opts: { databaseUrl?: string } = {}): Promise<QueueFixture> {
  f = await createQueueFixture({ ...opts, queue: { concurrency: 1 } });
  receiver = await new Receiver().start();
  receiver.now = () => f!.t.clock.now();
  const { secret } = await f.t.service.webhooks.create(
    { id: f.ctx.orgId, name: f.ctx.orgName },
    receiver.url,
    undefined,
    f.ctx,
  );
  receiver.secret = secret;
  return f;
}

/** Submits the PRs and drives the queue until no run is left; runs of PRs in `failing` fail. */
async function drive(
  t: TestService,
  ctx: AuthContext,
  prs: number[],
  failing: number[] = [],
  cancel: number[] = [],
): Promise<void> {
  const key = t.key(REPO);
  for (const n of prs) {
    if (!t.forge.state(REPO).prs.has(n)) t.forge.openPr(REPO, { number: n, title: `Change ${n}`, author: `dev${n}` });
    await t.service.submitPullRequest(ctx, key, { prNumber: n });
  }
  for (const n of cancel) await t.service.cancelPullRequest(ctx, key, n);
  const done = new Set<string>();
  for (let i = 0; i < 100; i++) {
    await t.runEffects();
    const next = t.ci.started.filter((s) => !done.has(s.runId));
    if (next.length === 0) return;
    for (const s of next) {
      done.add(s.runId);
      if (s.prNumbers.some((n) => failing.includes(n))) await t.ci.fail(s.runId);
      else await t.ci.pass(s.runId);
    }
  }
  throw new Error('the queue did not settle');
}

const byPr = (bodies: Json[], n: number) => bodies.filter((b) => b.pr_number === n);

describe('queue events (freezes)', () => {
  it('reach only a subscription that names them; one without a filter gets Trunk event types only', async () => {
    const { t, ctx, key } = await setUp();
    const named = await new Receiver().start();
    try {
      named.now = () => t.clock.now();
      const { secret } = await t.service.webhooks.create(
        { id: ctx.orgId, name: ctx.orgName },
        named.url,
        ['queue.frozen', 'queue.unfrozen', 'pull_request.merged'],
        ctx,
      );
      named.secret = secret;
      const from = t.clock.now();
      const until = from + 60 * SECOND;
      await t.service.updateQueue(ctx, key, {
        freezes: {
          windows: [],
          oneOff: [{ from: new Date(from).toISOString(), until: new Date(until).toISOString(), reason: 'release' }],
          exemptLabels: [],
          stopTesting: false,
        },
      });
      await drive(t, ctx, [1]);
      t.clock.set(until);
      await drive(t, ctx, []);
      await t.app.webhooks.drain();

      expect(named.rejected).toEqual([]);
      // Deliveries keep order per PR and per queue, not across them.
      const bodies = named.delivered().map((r) => r.body);
      expect(bodies).toHaveLength(3);
      expect(bodies).toEqual(
        expect.arrayContaining([
          {
            type: 'queue.frozen',
            action: 'frozen',
            status: 'frozen',
            repository: { host: 'github.com', owner: 'acme', name: 'web' },
            target_branch: 'main',
            timestamp: new Date(from).toISOString(),
            reason: 'release',
            frozen_until: new Date(until).toISOString(),
          },
          expect.objectContaining({
            type: 'queue.unfrozen',
            reason: 'release',
            timestamp: new Date(until).toISOString(),
          }),
          expect.objectContaining({
            type: 'pull_request.merged',
            pr_number: 1,
            timestamp: new Date(until).toISOString(),
          }),
        ]),
      );
      const unfiltered = receiver.delivered().map((r) => r.body.type as string);
      expect(unfiltered).toContain('pull_request.merged');
      expect(unfiltered.filter((type) => type.startsWith('queue.'))).toEqual([]);
    } finally {
      await named.close();
    }
  });
});

describe('webhook delivery', () => {
  it('delivers test_run.retry_requested, to a subscription that names it, when CI of a run is asked to run again', async () => {
    const { t, ctx, key } = await setUp();
    // A subscription without a filter gets Trunk's event types only: the one of setUp hears nothing of it.
    const named = await new Receiver().start();
    named.now = () => t.clock.now();
    const { secret } = await t.service.webhooks.create(
      { id: ctx.orgId, name: ctx.orgName },
      named.url,
      ['test_run.retry_requested'],
      ctx,
    );
    named.secret = secret;
    await t.service.updateQueue(ctx, key, { ciRetries: 1 });
    t.forge.openPr(REPO, { number: 1, title: 'Change 1', author: 'dev1' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const [start] = t.ci.started;
    await t.ci.fail(start!.runId);
    await t.runEffects();
    await t.app.webhooks.drain();
    expect(receiver.delivered().filter((r) => r.body.type === 'test_run.retry_requested')).toEqual([]);
    const retry = named.delivered().map((r) => r.body);
    await named.close();
    expect(retry).toEqual([
      {
        type: 'test_run.retry_requested',
        action: 'retry_requested',
        status: 'retry_requested',
        repository: { host: 'github.com', owner: 'acme', name: 'web' },
        target_branch: 'main',
        timestamp: expect.any(String),
        test_run_id: start!.runId,
        test_branch: start!.branch,
        test_branch_sha: start!.sha,
        pr_numbers: [1],
        is_bisection: false,
        retry_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      },
    ]);
  });

  it("delivers test_run.started, to a subscription that names it, when a run's test commit is built", async () => {
    const { t, ctx } = await setUp();
    const named = await new Receiver().start();
    named.now = () => t.clock.now();
    const { secret } = await t.service.webhooks.create(
      { id: ctx.orgId, name: ctx.orgName },
      named.url,
      ['test_run.started'],
      ctx,
    );
    named.secret = secret;
    t.forge.openPr(REPO, { number: 1, title: 'Change 1', author: 'dev1' });
    await t.service.submitPullRequest(ctx, t.key(REPO), { prNumber: 1 });
    await t.runEffects();
    const [start] = t.ci.started;
    await t.app.webhooks.drain();
    expect(receiver.delivered().filter((r) => r.body.type === 'test_run.started')).toEqual([]);
    const started = named.delivered().map((r) => r.body);
    await named.close();
    // This forge cannot compare commits: what changed is not known (null), not empty.
    expect(started).toEqual([
      {
        type: 'test_run.started',
        action: 'started',
        status: 'started',
        repository: { host: 'github.com', owner: 'acme', name: 'web' },
        target_branch: 'main',
        timestamp: expect.any(String),
        test_run_id: start!.runId,
        test_branch: start!.branch,
        test_branch_sha: start!.sha,
        pr_numbers: [1],
        is_bisection: false,
        base_sha: null,
        changed_files: null,
        pull_requests: null,
      },
    ]);
  });

  it("delivers a merge the forge refused in Trunk's name, GITHUB_API_MERGE_PR_FAILED", async () => {
    const { t, ctx, key } = await setUp();
    t.forge.openPr(REPO, { number: 1, title: 'Change 1', author: 'dev1' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const [start] = t.ci.started;
    // The tested commit gone, the forge refuses the merge (MERGE_REFUSED inside).
    t.forge.state(REPO).commits.delete(start!.sha);
    await t.ci.pass(start!.runId);
    await t.runEffects();
    await t.app.webhooks.drain();
    const failed = receiver.delivered().filter((r) => r.body.type === 'pull_request.failed');
    expect(failed.map((r) => r.body)).toEqual([
      expect.objectContaining({ pr_number: 1, failure_reason: 'GITHUB_API_MERGE_PR_FAILED' }),
    ]);
    expect(receiver.delivered().some((r) => r.raw.includes('MERGE_REFUSED'))).toBe(false);
  });

  it('delivers every event of every PR, signed, in order, with the contract payloads', async () => {
    const { t, ctx } = await setUp();
    await drive(t, ctx, [1, 2, 3, 4], [3], [4]);
    await t.app.webhooks.drain();

    expect(receiver.rejected).toEqual([]);
    const bodies = receiver.delivered().map((r) => r.body);
    const seq = (n: number) => byPr(bodies, n).map((b) => b.type);
    expect(seq(1)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.merged',
    ]);
    expect(seq(2)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.merged',
    ]);
    expect(seq(3)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.pending_failure',
      'pull_request.failed',
    ]);
    expect(seq(4)).toEqual(['pull_request.submitted', 'pull_request.queued', 'pull_request.canceled']);

    const repository = { host: 'github.com', owner: 'acme', name: 'web' };
    const common = (n: number) => ({
      author: `dev${n}`,
      http_details_url: `https://github.com/acme/web/pull/${n}`,
      pr_number: n,
      repository,
      target_branch: 'main',
    });
    const [submitted, queued, testing, merged] = byPr(bodies, 1);
    expect(submitted).toEqual({
      type: 'pull_request.submitted',
      action: 'submitted',
      status: 'submitted',
      ...common(1),
      timestamp: expect.stringMatching(/^2026-01-01T00:00:00\.\d{3}Z$/),
      submitted_reason: 'API_REQUESTED',
    });
    expect(queued).toEqual({
      type: 'pull_request.queued',
      action: 'queued',
      status: 'queued',
      ...common(1),
      timestamp: expect.any(String),
      queued_reason: 'MERGE_ITEM_NOW_READY',
    });
    expect(testing).toEqual({
      type: 'pull_request.testing',
      action: 'testing',
      status: 'testing',
      ...common(1),
      timestamp: expect.any(String),
      test_branch: expect.stringMatching(/^greenline-merge\/pr-1\//),
      test_branch_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      batched: false,
      is_bisection: false,
    });
    expect(merged).toEqual({
      type: 'pull_request.merged',
      action: 'merged',
      status: 'merged',
      ...common(1),
      timestamp: expect.any(String),
      test_branch: testing.test_branch,
      test_branch_sha: testing.test_branch_sha,
      batched: false,
      merged_reason: 'MERGE_GRAPH_MERGE',
    });
    const [, , , pendingFailure, failed] = byPr(bodies, 3);
    expect(pendingFailure).toMatchObject({
      action: 'pending_failure',
      status: 'pending_failure',
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      batched: false,
    });
    expect(pendingFailure.is_bisection).toBeUndefined();
    expect(failed).toMatchObject({
      action: 'failed',
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      is_bisection: false,
      batched: false,
    });
    const canceled = byPr(bodies, 4)[2];
    expect(canceled).toMatchObject({
      action: 'canceled',
      status: 'canceled',
      cancellation_reason: 'USER_REQUESTED',
      is_bisection: false,
      batched: false,
    });

    // One message per event, each delivered once; the signature's timestamp is the sender's time.
    const ids = receiver.delivered().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of receiver.delivered()) expect(r.timestamp).toBe(Math.floor(t.clock.now() / 1000));
  });

  it("links a PR through its repository's PR URL template in http_details_url", async () => {
    const { t, ctx } = await setUp();
    const slug = 'git.example.com/acme/api';
    await t.connectRepo('acme', slug, { prUrlTemplate: 'https://git.example.com/acme/api/pulls/{n}' });
    const key = t.key(slug);
    await t.service.createQueue(ctx, key, {});
    t.forge.openPr(slug, { number: 7, title: 'Change 7', author: 'dev7' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 7 });
    await t.runEffects();
    await t.app.webhooks.drain();
    const submitted = receiver.delivered().find((r) => r.body.type === 'pull_request.submitted')!.body;
    expect(submitted).toMatchObject({
      pr_number: 7,
      repository: { host: 'git.example.com', owner: 'acme', name: 'api' },
      http_details_url: 'https://git.example.com/acme/api/pulls/7',
    });
  });

  it('delivers batch events with the batch fields', async () => {
    f = await createQueueFixture({ queue: { concurrency: 1 } });
    const { t, ctx } = f;
    await t.service.updateQueue(ctx, t.key(REPO), { batch: true, batchingMinSize: 2 });
    receiver = await new Receiver().start();
    receiver.now = () => t.clock.now();
    const { secret } = await t.service.webhooks.create(
      { id: ctx.orgId, name: ctx.orgName },
      receiver.url,
      ['pull_request_batch.submitted', 'pull_request_batch.testing', 'pull_request_batch.merged'],
      ctx,
    );
    receiver.secret = secret;
    await drive(t, ctx, [1, 2]);
    await t.app.webhooks.drain();
    expect(receiver.rejected).toEqual([]);
    const bodies = receiver.delivered().map((r) => r.body);
    expect(bodies.map((b) => b.type)).toEqual([
      'pull_request_batch.submitted',
      'pull_request_batch.testing',
      'pull_request_batch.merged',
    ]);
    const repository = { host: 'github.com', owner: 'acme', name: 'web' };
    expect(bodies[0]).toEqual({
      type: 'pull_request_batch.submitted',
      action: 'submitted',
      status: 'submitted',
      pr_numbers: [1, 2],
      pr_numbers_in_batch: [1, 2],
      repository,
      target_branch: 'main',
      timestamp: expect.any(String),
      test_branch: expect.stringMatching(/^greenline-merge\/pr-1-2\//),
      test_branch_sha: null,
      submitted_reason: 'API_REQUESTED',
    });
    expect(bodies[1]).toMatchObject({
      action: 'testing',
      pr_numbers: [1, 2],
      is_bisection: false,
      test_branch_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(bodies[2]).toMatchObject({ action: 'merged', pr_numbers: [1, 2], merged_reason: 'MERGE_GRAPH_MERGE' });
    expect(bodies[2].author).toBeUndefined();
  });

  it('3xx is a failure and redirects are not followed; the retry carries the same webhook-id', async () => {
    const { t, ctx } = await setUp();
    const elsewhere = await new Receiver().start();
    try {
      receiver.behaviour = { kind: 'redirect', location: elsewhere.url };
      await drive(t, ctx, [1]);
      await t.app.webhooks.drain();
      expect(elsewhere.received).toEqual([]);
      // Only the PR's first event was tried: the later ones wait for it.
      expect(receiver.received.map((r) => [r.body.type, r.answered])).toEqual([['pull_request.submitted', 302]]);
      const [sub] = await t.service.webhooks.list({ id: ctx.orgId, name: ctx.orgName });
      const first = (await t.service.webhooks.deliveries(ctx.orgId, sub!.id)).at(-1)!;
      expect(first).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastStatusCode: 302,
        nextAttemptAt: t.clock.now() + 5 * SECOND,
      });
      expect(first.lastError).toMatch(/redirects are not followed/);

      receiver.behaviour = { kind: 'ok' };
      t.clock.advance(5 * SECOND);
      await t.app.webhooks.drain();
      expect(receiver.delivered().map((r) => r.body.type)).toEqual([
        'pull_request.submitted',
        'pull_request.queued',
        'pull_request.testing',
        'pull_request.merged',
      ]);
      expect(receiver.delivered()[0]!.id).toBe(receiver.received[0]!.id);
      expect(receiver.rejected).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('a receiver slower than the timeout fails the attempt; the next attempt succeeds', async () => {
    const { t, ctx } = await setUp();
    const worker = new DeliveryWorker(webhookOutbox, { db: t.db, clock: t.clock, timeoutMs: 300 });
    receiver.behaviour = { kind: 'slow', ms: 3_000 };
    await drive(t, ctx, [1]);
    await worker.drain();
    const [sub] = await t.service.webhooks.list({ id: ctx.orgId, name: ctx.orgName });
    const first = (await t.service.webhooks.deliveries(ctx.orgId, sub!.id)).at(-1)!;
    expect(first).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: 'no answer within 300 ms',
    });
    expect(first.attemptLog).toEqual([
      expect.objectContaining({ success: false, statusCode: null, error: 'no answer within 300 ms' }),
    ]);
    receiver.behaviour = { kind: 'ok' };
    t.clock.advance(5 * SECOND);
    await worker.drain();
    expect(receiver.delivered().map((r) => r.body.type)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.merged',
    ]);
  });

  it('connects to the address the policy checked: a name that comes to resolve to a metadata address is refused (no DNS rebinding)', async () => {
    f = await createQueueFixture({ queue: { concurrency: 1 } });
    const { t, ctx } = f;
    receiver = await new Receiver().start();
    receiver.now = () => t.clock.now();
    // hooks.test exists only in this resolver: a delivery that reaches the receiver was connected
    // through the policy's own lookup, not a second resolution.
    let answer = ['127.0.0.1'];
    const policy = new UrlPolicy(null, async (host) => (host === 'hooks.test' ? answer : []));
    const { secret } = await t.service.webhooks.create(
      { id: ctx.orgId, name: ctx.orgName },
      `http://hooks.test:${new URL(receiver.url).port}/hooks`,
      undefined,
      ctx,
    );
    receiver.secret = secret;
    const worker = new DeliveryWorker(webhookOutbox, { db: t.db, clock: t.clock, policy });
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, t.key(REPO), { prNumber: 1 });
    await t.runEffects();
    await worker.drain();
    expect(receiver.delivered().map((r) => r.body.type)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
    ]);

    answer = ['127.0.0.1', '169.254.169.254'];
    await t.service.cancelPullRequest(ctx, t.key(REPO), 1);
    await t.runEffects();
    await worker.drain();
    expect(receiver.received).toHaveLength(3);
    const [sub] = await t.service.webhooks.list({ id: ctx.orgId, name: ctx.orgName });
    const [last] = await t.service.webhooks.deliveries(ctx.orgId, sub!.id); // newest first
    expect(last).toMatchObject({
      eventType: 'pull_request.canceled',
      status: 'pending',
      attempts: 1,
      lastError: 'hooks.test resolves to 169.254.169.254, a link-local or cloud metadata address; not sent',
    });
  });
});
