/**
 * Chat notifications delivered durably, on SQLite and PostgreSQL, to a real local HTTP receiver
 * standing in for Slack, Teams and a chat service: a failing PR's message carries the reason; a
 * channel down is retried on the delivery retry schedule (the fake clock walks it) and its messages keep
 * the queue's order; a restart in the middle loses nothing, and a dead instance's claim comes back on
 * takeover; a channel failing for 3 days is disabled
 * and listed with its last error; pausing and resuming a queue are announced, and never sent to a
 * webhook subscription that did not name queue events.
 */
import { join } from 'node:path';
import { isAdaptiveCard } from '@microsoft/teams.cards';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../src/app/service-port.js';
import { takeOverQueues } from '../../src/app/executor/queue-takeover.js';
import { leaseMessages, nextMessageDueAt, selectDueMessageIds } from '../../src/delivery/messages.js';
import { RETRY_DELAYS_MS } from '../../src/delivery/retry-schedule.js';
import { NOTIFY_TABLES } from '../../src/notify/outbox.js';
import { testDatabases, type TestDatabase } from '../helpers/databases.js';
import { createTestService, type TestService } from '../helpers/service.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { Receiver } from '../webhooks/receiver.js';
import { ChatReceiver } from './chat-receiver.js';

const REPO = 'github.com/acme/web';
const SECOND = 1_000;
const HOUR = 3_600_000;

const databases: TestDatabase[] = await testDatabases();
const dir = makeTempDirSync('greenline-notify-');
afterAll(async () => {
  for (const d of databases) await d.cleanup();
  removeTempDir(dir);
});

let chat: ChatReceiver;
let services: TestService[] = [];
afterEach(async () => {
  await chat?.close();
  for (const s of services.splice(0)) await s.close();
});

async function setUp(databaseUrl: string): Promise<{ t: TestService; ctx: AuthContext }> {
  const t = await createTestService({ databaseUrl, publicUrl: 'https://greenline.example.com' });
  services.push(t);
  const { ctx } = await t.createOrg('acme');
  await t.connectRepo('acme', REPO, { forge: 'github' });
  await t.service.createQueue(ctx, t.key(REPO), { concurrency: 1 });
  return { t, ctx };
}

const org = (ctx: AuthContext) => ({ id: ctx.orgId, name: ctx.orgName });

/** Submits the PRs and settles their runs: odd PRs fail, even ones pass. */
async function drive(t: TestService, ctx: AuthContext, prs: number[]): Promise<void> {
  for (const n of prs) {
    if (!t.forge.state(REPO).prs.has(n)) t.forge.openPr(REPO, { number: n, author: `dev${n}`, title: `Change ${n}` });
    await t.service.submitPullRequest(ctx, t.key(REPO), { prNumber: n });
  }
  const done = new Set<string>();
  for (let i = 0; i < 100; i++) {
    await t.runEffects();
    const next = t.ci.startedRunIds().filter((id) => !done.has(id));
    if (next.length === 0) return;
    for (const id of next) {
      done.add(id);
      const pr = t.ci.started.find((s) => s.runId === id)!.prNumbers[0]!;
      await (pr % 2 === 1 ? t.ci.fail(id) : t.ci.pass(id));
    }
  }
}

describe.each(databases.map((d) => [d.name, d] as const))('chat notifications on %s', (_name, database) => {
  it('a failing PR reaches Slack, Teams and a chat webhook in words, with the reason and the links', async () => {
    chat = await new ChatReceiver().start();
    const { t, ctx } = await setUp(await database.url());
    for (const kind of ['slack', 'teams', 'chat'])
      await t.service.notifications.add(
        org(ctx),
        { kind, url: `${chat.base}/${kind}`, events: ['failed', 'merged'] },
        ctx,
      );
    await drive(t, ctx, [1, 2]);
    await t.app.notifier.drain();

    const [slack1, slack2] = chat.delivered('/slack').map((p) => p.body);
    expect(slack1.blocks[0].text.text).toBe('#1 Change 1 failed');
    expect(slack1.blocks[1].text.text).toMatch(/^Failed: a required CI status failed\..*\(test run [0-9a-f]{8}\)$/);
    expect(slack1.text).toContain('submitted by dev1');
    expect(slack1.text).toContain('Dashboard: https://greenline.example.com/#/pr/github.com/acme/web/main/1');
    expect(slack1.text).toContain('Pull request: https://github.com/acme/web/pull/1');
    expect(slack2.blocks[0].text.text).toBe('#2 Change 2 merged');
    expect(slack2.blocks[1].text.text).toMatch(/^Merged: its tests passed and the queue merged it\./);

    const teams = chat.delivered('/teams').map((p) => p.body);
    expect(teams.length).toBe(2);
    expect(isAdaptiveCard(teams[0].attachments[0].content)).toBe(true);
    expect(teams[0].attachments[0].content.body[1].text).toMatch(/^Failed: a required CI status failed\./);

    const texts = chat.delivered('/chat').map((p) => p.body.text as string);
    expect(texts.map((x) => x.split('\n')[0])).toEqual(['#1 Change 1 failed', '#2 Change 2 merged']);

    const channels = await t.service.notifications.list(ctx.orgId, () => ctx.orgName);
    expect(channels.map((c) => c.lastMessage)).toEqual(
      channels.map(() =>
        expect.objectContaining({ event: 'merged', status: 'delivered', attempts: 1, lastError: null }),
      ),
    );
  });

  it('a channel down is retried on the schedule; its messages keep the queue order; queue pause and resume are announced', async () => {
    chat = await new ChatReceiver().start();
    const webhookReceiver = await new Receiver().start();
    try {
      const { t, ctx } = await setUp(await database.url());
      const { secret } = await t.service.webhooks.create(org(ctx), webhookReceiver.url, undefined, ctx);
      webhookReceiver.secret = secret;
      webhookReceiver.now = () => t.clock.now();
      const channel = await t.service.notifications.add(org(ctx), { kind: 'chat', url: `${chat.base}/chat` }, ctx);
      chat.status = 503;
      await drive(t, ctx, [1, 3]);
      await t.service.updateQueue(ctx, t.key(REPO), { state: 'PAUSED' });
      await t.runEffects();
      await t.service.updateQueue(ctx, t.key(REPO), { state: 'RUNNING' });
      await t.runEffects();
      await t.app.notifier.drain();
      // Only the queue's first message was tried; the others wait behind it.
      expect(chat.posts.length).toBe(1);
      expect(await nextMessageDueAt(t.db, NOTIFY_TABLES)).toBe(t.clock.now() + 5 * SECOND);
      for (const delay of RETRY_DELAYS_MS.slice(0, 3)) {
        t.clock.advance(delay);
        await t.app.notifier.drain();
      }
      expect(chat.posts.length).toBe(4);
      const [listed] = await t.service.notifications.list(ctx.orgId, () => ctx.orgName);
      expect(listed!.failingSince).not.toBeNull();
      expect(listed!.lastMessage).toMatchObject({ status: 'pending' });
      const head = await t.db
        .selectFrom('notify_messages')
        .selectAll()
        .where('subscription_id', '=', channel.id)
        .orderBy('id')
        .executeTakeFirstOrThrow();
      expect(head).toMatchObject({ status: 'pending', attempts: 4, last_status_code: 503 });
      expect(head.last_error).toMatch(/^HTTP 503/);

      chat.status = 200;
      t.clock.advance(RETRY_DELAYS_MS[3]!);
      await t.app.notifier.drain();
      expect(chat.delivered('/chat').map((p) => (p.body.text as string).split('\n')[0])).toEqual([
        '#1 Change 1 failed',
        '#3 Change 3 failed',
        'Queue github.com/acme/web (main) paused',
        'Queue github.com/acme/web (main) resumed',
      ]);
      const [after] = await t.service.notifications.list(ctx.orgId, () => ctx.orgName);
      expect(after).toMatchObject({ enabled: true, failingSince: null });

      // The webhook subscription (no filter) got Trunk's events only.
      await t.app.webhooks.drain();
      const types = new Set(webhookReceiver.received.map((r) => r.body.type as string));
      expect(types.has('pull_request.failed')).toBe(true);
      expect([...types].filter((x) => x.startsWith('queue.'))).toEqual([]);
    } finally {
      await webhookReceiver.close();
    }
  });

  it("a Slack blip of 8 seconds: the queue's next event finds the channel back and every waiting message follows at once, in order", async () => {
    chat = await new ChatReceiver().start();
    const { t, ctx } = await setUp(await database.url());
    await t.service.notifications.add(
      org(ctx),
      {
        kind: 'slack',
        url: `${chat.base}/slack`,
        events: ['failed', 'merged'],
      },
      ctx,
    );
    chat.status = 503;
    await drive(t, ctx, [1, 2]);
    await t.app.notifier.drain();
    t.clock.advance(RETRY_DELAYS_MS[0]!);
    await t.app.notifier.drain(); // PR 1's message refused twice: 5 minutes to its next retry; PR 2's behind it
    expect(chat.posts.map((p) => p.answered)).toEqual([503, 503]);

    t.clock.advance(3 * SECOND);
    chat.status = 200;
    const recovered = t.clock.now();
    t.clock.advance(2 * SECOND);
    await drive(t, ctx, [3]);
    await t.app.notifier.drain();
    const texts = chat.delivered('/slack').map((p) => (p.body.text as string).split('\n')[0]);
    expect(texts).toEqual(['#1 Change 1 failed', '#2 Change 2 merged', '#3 Change 3 failed']);
    const rows = await t.db.selectFrom('notify_messages').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.status, r.delivered_at! - recovered])).toEqual(rows.map(() => ['delivered', 2 * SECOND]));
  });

  it('a restart in the middle loses nothing', async () => {
    chat = await new ChatReceiver().start();
    // SQLite: a database file, which outlives the first process's connection.
    const url = database.name === 'sqlite' ? `sqlite:${join(dir, 'greenline.db')}` : await database.url();
    const first = await setUp(url);
    await first.t.service.notifications.add(org(first.ctx), { kind: 'slack', url: `${chat.base}/slack` }, first.ctx);
    chat.status = 500;
    await drive(first.t, first.ctx, [1]);
    await first.t.app.notifier.drain();
    expect(chat.posts.length).toBe(1);
    const at = first.t.clock.now();
    await first.t.close();
    services = [];

    chat.status = 200;
    const second = await createTestService({ databaseUrl: url });
    services.push(second);
    second.clock.set(at + 5 * SECOND);
    await second.app.notifier.drain();
    const delivered = chat.delivered('/slack');
    expect(delivered.length).toBe(1);
    expect(delivered[0]!.body.blocks[0].text.text).toBe('#1 Change 1 failed');
  });

  it('a message claimed by an instance that died is sent again when its queues are taken over', async () => {
    chat = await new ChatReceiver().start();
    const { t, ctx } = await setUp(await database.url());
    await t.service.notifications.add(org(ctx), { kind: 'chat', url: `${chat.base}/chat` }, ctx);
    await drive(t, ctx, [1]);
    // The dead instance claimed the message (its lease runs for another minute) and never answered.
    const now = t.clock.now();
    const claimed = await leaseMessages(
      t.db,
      NOTIFY_TABLES,
      await selectDueMessageIds(t.db, NOTIFY_TABLES, now, 10),
      now,
      now + 60 * SECOND,
      'dead',
    );
    expect(claimed.length).toBe(1);
    await t.app.notifier.drain();
    expect(chat.posts.length).toBe(0);
    await takeOverQueues(
      { db: t.db, clock: t.clock, ciOutcome: t.app.ciOutcome, adapters: t.app.adapters, instanceId: 'alive' },
      [],
      ['dead'],
    );
    await t.app.notifier.drain();
    expect(chat.delivered('/chat').map((p) => (p.body.text as string).split('\n')[0])).toEqual(['#1 Change 1 failed']);
  });

  it('a channel failing for 3 days is disabled, with the reason listed; enabled again it gets new events', async () => {
    chat = await new ChatReceiver().start();
    const { t, ctx } = await setUp(await database.url());
    const channel = await t.service.notifications.add(org(ctx), { kind: 'teams', url: `${chat.base}/teams` }, ctx);
    chat.status = 500;
    for (let day = 0; day < 4; day++) {
      await drive(t, ctx, [2 * day + 1]);
      for (let step = 0; step < 4; step++) {
        await t.app.notifier.drain();
        t.clock.advance(6 * HOUR);
      }
    }
    await t.app.notifier.drain();
    const [listed] = await t.service.notifications.list(ctx.orgId, () => ctx.orgName);
    expect(listed).toMatchObject({ id: channel.id, enabled: false });
    expect(listed!.disabledReason).toMatch(/every attempt failed since .*HTTP 500/);
    const tried = chat.posts.length;
    await drive(t, ctx, [11]);
    await t.app.notifier.drain();
    expect(chat.posts.length).toBe(tried);

    await t.service.notifications.enable(ctx.orgId, channel.id, ctx);
    chat.status = 200;
    await drive(t, ctx, [13]);
    await t.app.notifier.drain();
    expect(chat.delivered('/teams').map((p) => p.body.attachments[0].content.body[0].text)).toEqual([
      '#13 Change 13 failed',
    ]);
  });
});
