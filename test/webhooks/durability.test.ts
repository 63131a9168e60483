/**
 * Webhook delivery under failure, on SQLite and PostgreSQL: a receiver down for hours (the fake clock
 * walks the retry schedule) loses nothing and gets each message exactly once successfully, in order
 * per PR; a restart in the middle (SQLite file) loses nothing; an endpoint failing for 5 days is
 * disabled; a rotated secret signs the next attempt.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../src/app/service-port.js';
import { leaseMessages, nextMessageDueAt, selectDueMessageIds } from '../../src/delivery/messages.js';
import { RETRY_DELAYS_MS } from '../../src/delivery/retry-schedule.js';
import { WEBHOOK_TABLES } from '../../src/webhooks/outbox.js';
import { testDatabases, type TestDatabase } from '../helpers/databases.js';
import { createTestService, type TestService } from '../helpers/service.js';
import { Receiver } from './receiver.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

const REPO = 'github.com/acme/web';
const SECOND = 1_000;
const HOUR = 3_600_000;

const databases: TestDatabase[] = await testDatabases();
afterAll(async () => {
  for (const d of databases) await d.cleanup();
});

let receiver: Receiver;
let services: TestService[] = [];
afterEach(async () => {
  await receiver?.close();
  for (const s of services.splice(0)) await s.close();
});

interface Setup {
  t: TestService;
  ctx: AuthContext;
  subscriptionId: string;
}

async function setUp(databaseUrl: string, existing?: { ctx: AuthContext; subscriptionId: string }): Promise<Setup> {
  const t = await createTestService({ databaseUrl });
  services.push(t);
  if (existing) return { t, ...existing };
  const { ctx } = await t.createOrg('acme');
  await t.connectRepo('acme', REPO);
  await t.service.createQueue(ctx, t.key(REPO), { concurrency: 1 });
  const { webhook, secret } = await t.service.webhooks.create(
    { id: ctx.orgId, name: ctx.orgName },
    receiver.url,
    undefined,
    ctx,
  );
  receiver.secret = secret;
  receiver.now = () => t.clock.now();
  return { t, ctx, subscriptionId: webhook.id };
}

async function drive(t: TestService, ctx: AuthContext, prs: number[]): Promise<void> {
  for (const n of prs) {
    if (!t.forge.state(REPO).prs.has(n)) t.forge.openPr(REPO, { number: n, author: `dev${n}` });
    await t.service.submitPullRequest(ctx, t.key(REPO), { prNumber: n });
  }
  const done = new Set<string>();
  for (let i = 0; i < 100; i++) {
    await t.runEffects();
    const next = t.ci.startedRunIds().filter((id) => !done.has(id));
    if (next.length === 0) return;
    for (const id of next) {
      done.add(id);
      await t.ci.pass(id);
    }
  }
}

const MERGED_SEQUENCE = [
  'pull_request.submitted',
  'pull_request.queued',
  'pull_request.testing',
  'pull_request.merged',
];

/** Every message of the subscription delivered exactly once successfully, none lost, in order per PR. */
async function expectAllDeliveredOnce(
  t: TestService,
  ctx: AuthContext,
  subscriptionId: string,
  prs: number[],
): Promise<void> {
  expect(receiver.rejected).toEqual([]);
  const deliveries = await t.service.webhooks.deliveries(ctx.orgId, subscriptionId, 1000);
  expect(deliveries.length).toBe(prs.length * MERGED_SEQUENCE.length);
  expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
  const ok = receiver.delivered();
  expect(ok.map((r) => r.id).sort()).toEqual(deliveries.map((d) => d.id).sort());
  for (const n of prs)
    expect(ok.filter((r) => r.body.pr_number === n).map((r) => r.body.type)).toEqual(MERGED_SEQUENCE);
}

describe.each(databases.map((d) => [d.name, d] as const))('webhooks on %s', (_name, database) => {
  it('a receiver down for hours gets every event once it is back, each webhook-id delivered once, in order', async () => {
    receiver = await new Receiver().start();
    receiver.behaviour = { kind: 'status', status: 503 };
    const { t, ctx, subscriptionId } = await setUp(await database.url());
    await drive(t, ctx, [1, 2, 3]);
    await t.app.webhooks.drain();
    // The worker sleeps until the first retry: messages waiting behind a failed one are not due.
    expect(await nextMessageDueAt(t.db, WEBHOOK_TABLES)).toBe(t.clock.now() + 5 * SECOND);
    // Down through the first five retries (5 s, 5 min, 30 min, 2 h, 5 h after each failure).
    for (const delay of RETRY_DELAYS_MS.slice(0, 5)) {
      t.clock.advance(delay);
      await t.app.webhooks.drain();
    }
    const failedAttempts = receiver.received.filter((r) => r.answered === 503);
    // Only each PR's first event was tried (6 times each), with the same webhook-id every time.
    expect(failedAttempts.length).toBe(3 * 6);
    expect(new Set(failedAttempts.map((r) => r.body.type))).toEqual(new Set(['pull_request.submitted']));
    expect(new Set(failedAttempts.map((r) => r.id)).size).toBe(3);
    const before = (await t.service.webhooks.deliveries(ctx.orgId, subscriptionId, 1000)).find(
      (d) => d.id === failedAttempts[0]!.id,
    )!;
    expect(before).toMatchObject({ status: 'pending', attempts: 6, lastStatusCode: 503 });
    expect(before.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 503, 503, 503, 503]);
    expect(before.attemptLog.map((a) => a.at - before.attemptLog[0]!.at)).toEqual([
      0,
      5 * SECOND,
      5 * SECOND + 300 * SECOND,
      5 * SECOND + 2100 * SECOND,
      5 * SECOND + 2100 * SECOND + 2 * HOUR,
      5 * SECOND + 2100 * SECOND + 7 * HOUR,
    ]);

    receiver.behaviour = { kind: 'ok' };
    t.clock.advance(RETRY_DELAYS_MS[5]!);
    await t.app.webhooks.drain();
    await expectAllDeliveredOnce(t, ctx, subscriptionId, [1, 2, 3]);
    const after = (await t.service.webhooks.deliveries(ctx.orgId, subscriptionId, 1000)).find(
      (d) => d.id === failedAttempts[0]!.id,
    )!;
    expect(after).toMatchObject({ status: 'delivered', attempts: 7, lastStatusCode: 204, nextAttemptAt: null });
  });

  it("gives a message up after the eighth failed attempt; the PR's next event follows", async () => {
    receiver = await new Receiver().start();
    receiver.behaviour = { kind: 'status', status: 500 };
    const { t, ctx, subscriptionId } = await setUp(await database.url());
    await drive(t, ctx, [1]);
    await t.app.webhooks.drain();
    for (const delay of RETRY_DELAYS_MS) {
      t.clock.advance(delay);
      await t.app.webhooks.drain();
    }
    const all = await t.service.webhooks.deliveries(ctx.orgId, subscriptionId, 1000);
    const submitted = all.find((d) => d.eventType === 'pull_request.submitted')!;
    expect(submitted).toMatchObject({ status: 'failed', attempts: 8 });
    // The next event of the PR was tried once the first was given up.
    expect(receiver.received.filter((r) => r.body.type === 'pull_request.queued').length).toBe(1);
    // A person sends it again: same webhook-id and body, the whole schedule ahead of it.
    receiver.behaviour = { kind: 'ok' };
    await t.service.webhooks.redeliver(ctx.orgId, submitted.id, ctx);
    await t.app.webhooks.drain();
    const again = (await t.service.webhooks.deliveries(ctx.orgId, subscriptionId, 1000)).find(
      (d) => d.id === submitted.id,
    )!;
    expect(again).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(again.attemptLog.at(-1)).toMatchObject({ success: true, manual: true, statusCode: 204 });
    expect(receiver.delivered()[0]!).toMatchObject({ id: submitted.id });
  });

  it('an endpoint failing continuously for 5 days is disabled; enabled again it gets new events', async () => {
    receiver = await new Receiver().start();
    receiver.behaviour = { kind: 'status', status: 500 };
    const { t, ctx, subscriptionId } = await setUp(await database.url());
    const org = { id: ctx.orgId, name: ctx.orgName };
    for (let day = 0; day < 6; day++) {
      await drive(t, ctx, [day + 1]);
      for (let step = 0; step < 4; step++) {
        await t.app.webhooks.drain();
        t.clock.advance(6 * HOUR);
      }
    }
    await t.app.webhooks.drain();
    const [sub] = await t.service.webhooks.list(org);
    expect(sub).toMatchObject({ id: subscriptionId, enabled: false });
    expect(sub!.disabledReason).toMatch(/every attempt failed since/);
    const deliveries = await t.service.webhooks.deliveries(ctx.orgId, subscriptionId, 1000);
    expect(deliveries.some((d) => d.status === 'pending')).toBe(false);
    const count = deliveries.length;
    await drive(t, ctx, [7]);
    expect((await t.service.webhooks.deliveries(ctx.orgId, subscriptionId, 1000)).length).toBe(count);
    await expect(t.service.webhooks.redeliver(ctx.orgId, deliveries[0]!.id, ctx)).rejects.toMatchObject({
      code: 'WEBHOOK_DISABLED',
    });

    await t.service.webhooks.enable(ctx.orgId, subscriptionId, ctx);
    receiver.behaviour = { kind: 'ok' };
    await drive(t, ctx, [8]);
    await t.app.webhooks.drain();
    expect(receiver.delivered().map((r) => r.body.pr_number)).toEqual([8, 8, 8, 8]);
  });

  it('signs with the new secret after a rotation (the old one no longer verifies)', async () => {
    receiver = await new Receiver().start();
    const { t, ctx, subscriptionId } = await setUp(await database.url());
    const secret = await t.service.webhooks.rotateSecret(ctx.orgId, subscriptionId, ctx);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await drive(t, ctx, [1]);
    await t.app.webhooks.drain();
    expect(receiver.rejected.length).toBe(4); // checked against the old secret: refused
    receiver.secret = secret;
    receiver.rejected.length = 0;
    const [first] = receiver.delivered();
    await t.service.webhooks.redeliver(ctx.orgId, first!.id, ctx);
    await t.app.webhooks.drain();
    expect(receiver.rejected).toEqual([]);
    expect(receiver.received.at(-1)!.id).toBe(first!.id);
  });
});

describe('a restart in the middle', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDirSync('greenline-webhooks-');
  });
  afterAll(() => removeTempDir(dir));

  it('loses nothing: failed, pending and claimed-but-unanswered messages are delivered after reopening', async () => {
    const url = `sqlite:${join(dir, 'greenline.db')}`;
    receiver = await new Receiver().start();
    const first = await setUp(url);
    await drive(first.t, first.ctx, [1]);
    await first.t.app.webhooks.drain();
    receiver.behaviour = { kind: 'status', status: 503 };
    await drive(first.t, first.ctx, [2, 3]);
    await first.t.app.webhooks.drain();
    // A worker claims the due messages (PR 2's and PR 3's first) and dies before answering.
    first.t.clock.advance(5 * SECOND);
    const now = first.t.clock.now();
    const claimed = await leaseMessages(
      first.t.db,
      WEBHOOK_TABLES,
      await selectDueMessageIds(first.t.db, WEBHOOK_TABLES, now, 100),
      now,
      now + 75 * SECOND,
      'a-dead-instance',
    );
    expect(claimed.length).toBe(2);
    const at = first.t.clock.now();
    await first.t.close();
    services = [];

    receiver.behaviour = { kind: 'ok' };
    const second = await setUp(url, { ctx: first.ctx, subscriptionId: first.subscriptionId });
    second.t.clock.set(at);
    receiver.now = () => second.t.clock.now();
    await second.t.app.webhooks.drain();
    expect(receiver.delivered().length).toBe(4); // PR 1's, before the restart; the claimed ones wait for their lease
    second.t.clock.advance(75 * SECOND);
    await second.t.app.webhooks.drain();
    await expectAllDeliveredOnce(second.t, first.ctx, first.subscriptionId, [1, 2, 3]);
  });
});
