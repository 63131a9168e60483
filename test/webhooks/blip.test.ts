/**
 * A receiver blip, on SQLite and PostgreSQL, with a real receiver whose port stops listening for a
 * few seconds (connections refused) and a manual clock: PR 1's first event is refused twice (its next
 * retry is 5 minutes away) and its later events wait behind it; when the receiver is back, the next
 * delivery that succeeds (another PR's event) sends them all at once, in order, each webhook-id once:
 * within seconds of the recovery, not at the 5-minute retry. The same across a restart during the
 * outage (the state is the database's), and with two more instances draining the same store.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import type { AuthContext } from '../../src/app/service-port.js';
import { RETRY_DELAYS_MS } from '../../src/delivery/retry-schedule.js';
import { ScriptedCi } from '../doubles/scripted-ci.js';
import { testDatabases, type TestDatabase } from '../helpers/databases.js';
import { createTestService, type TestService } from '../helpers/service.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { Receiver } from './receiver.js';

const REPO = 'github.com/acme/web';
const SECOND = 1_000;
const EVENTS = ['pull_request.submitted', 'pull_request.queued', 'pull_request.testing', 'pull_request.merged'];

const databases: TestDatabase[] = await testDatabases();
let dir: string;
beforeAll(() => {
  dir = makeTempDirSync('greenline-blip-');
});
afterAll(async () => {
  for (const d of databases) await d.cleanup();
  removeTempDir(dir);
});

let receiver: Receiver;
let services: TestService[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await receiver?.close();
  for (const s of services.splice(0)) await s.close();
});

interface Setup {
  t: TestService;
  ctx: AuthContext;
  subscriptionId: string;
}

/** A service on the database; the org, queue and webhook are made unless `existing` (a restart). */
async function setUp(databaseUrl: string, existing?: Omit<Setup, 't'>, now?: number): Promise<Setup> {
  const t = await createTestService({ databaseUrl, ...(now !== undefined ? { now } : {}) });
  services.push(t);
  receiver.now = () => t.clock.now();
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
  return { t, ctx, subscriptionId: webhook.id };
}

/** Submits the PRs and passes their runs until none is left. */
async function drive(t: TestService, ctx: AuthContext, prs: number[]): Promise<void> {
  for (const n of prs) {
    t.forge.openPr(REPO, { number: n, author: `dev${n}` });
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

/** The receiver goes down; PR 1's events are queued and its first one refused twice: 5 minutes to the next retry. */
async function blipStarts(s: Setup): Promise<void> {
  await receiver.down();
  await drive(s.t, s.ctx, [1]);
  await s.t.app.webhooks.drain();
  s.t.clock.advance(RETRY_DELAYS_MS[0]!);
  await s.t.app.webhooks.drain();
  const deliveries = await s.t.service.webhooks.deliveries(s.ctx.orgId, s.subscriptionId);
  const first = deliveries.find((d) => d.eventType === 'pull_request.submitted')!;
  expect(first).toMatchObject({
    status: 'pending',
    attempts: 2,
    lastStatusCode: null,
    nextAttemptAt: s.t.clock.now() + RETRY_DELAYS_MS[1]!,
  });
  expect(first.lastError).toMatch(/ECONNREFUSED/);
  expect(first.waiting).toBe(
    `the endpoint did not take it (${first.lastError}); tried again at ${new Date(first.nextAttemptAt!).toISOString()}, or sooner: at once when the endpoint takes another delivery, and early (not counted if it fails) when a later event of the same PR (or queue) is queued`,
  );
  const later = deliveries.filter((d) => d !== first);
  expect(later.map((d) => [d.attempts, d.waiting])).toEqual(
    later.map(() => [0, 'held behind an earlier event of the same PR (or queue), which goes first']),
  );
}

/** What the receiver accepted of a PR: event types in order. */
const typesOf = (pr: number) =>
  receiver
    .delivered()
    .filter((r) => r.body.pr_number === pr)
    .map((r) => r.body.type);

/** Every delivery of the subscription delivered, each webhook-id accepted once, signatures good. */
async function expectEachDeliveredOnce(s: Setup): Promise<void> {
  expect(receiver.rejected).toEqual([]);
  const deliveries = await s.t.service.webhooks.deliveries(s.ctx.orgId, s.subscriptionId);
  expect(deliveries.map((d) => [d.status, d.waiting])).toEqual(deliveries.map(() => ['delivered', null]));
  const ids = receiver.delivered().map((r) => r.id);
  expect(ids.sort()).toEqual(deliveries.map((d) => d.id).sort());
}

describe.each(databases.map((d) => [d.name, d] as const))('a receiver blip on %s', (_name, database) => {
  it("a PR's later events reach the receiver within seconds of its recovery, in order, not at the 5-minute retry", async () => {
    receiver = await new Receiver().start();
    const s = await setUp(await database.url());
    await blipStarts(s);
    expect(receiver.received).toEqual([]);

    // Back 3 s later (an 8-second blip); 2 s after that another PR's event goes out.
    s.t.clock.advance(3 * SECOND);
    await receiver.up();
    const recovered = s.t.clock.now();
    s.t.clock.advance(2 * SECOND);
    await drive(s.t, s.ctx, [2]);
    await s.t.app.webhooks.drain();

    expect(typesOf(1)).toEqual(EVENTS);
    expect(typesOf(2)).toEqual(EVENTS);
    const deliveries = await s.t.service.webhooks.deliveries(s.ctx.orgId, s.subscriptionId);
    const ofPr1 = deliveries.filter((d) => (JSON.parse(d.body) as { pr_number: number }).pr_number === 1);
    expect(ofPr1.length).toBe(4);
    for (const d of ofPr1) expect(d.deliveredAt! - recovered).toBeLessThanOrEqual(2 * SECOND);
    await expectEachDeliveredOnce(s);
  });

  it("with no other PR's traffic, the PR's own next event finds the receiver back: no 5-minute wait either", async () => {
    receiver = await new Receiver().start();
    const s = await setUp(await database.url());
    await receiver.down();
    s.t.forge.openPr(REPO, { number: 1, author: 'dev1' });
    await s.t.service.submitPullRequest(s.ctx, s.t.key(REPO), { prNumber: 1 });
    await s.t.runEffects(); // submitted, queued, testing
    await s.t.app.webhooks.drain();
    s.t.clock.advance(RETRY_DELAYS_MS[0]!);
    await s.t.app.webhooks.drain(); // refused twice: the next retry is 5 minutes away

    s.t.clock.advance(3 * SECOND);
    await receiver.up();
    const recovered = s.t.clock.now();
    s.t.clock.advance(2 * SECOND);
    await s.t.ci.pass(s.t.ci.startedRunIds()[0]!);
    await s.t.runEffects(); // merged
    await s.t.app.webhooks.drain();
    expect(typesOf(1)).toEqual(EVENTS);
    const deliveries = await s.t.service.webhooks.deliveries(s.ctx.orgId, s.subscriptionId);
    for (const d of deliveries) expect(d.deliveredAt! - recovered).toBeLessThanOrEqual(2 * SECOND);
    await expectEachDeliveredOnce(s);
  });

  it('a restart during the outage changes nothing: the first delivery after it sends what waited, in order', async () => {
    receiver = await new Receiver().start();
    const url = database.name === 'sqlite' ? `sqlite:${join(dir, `restart-${Date.now()}.db`)}` : await database.url();
    const first = await setUp(url);
    await blipStarts(first);
    const at = first.t.clock.now();
    await first.t.close();
    services = [];

    const second = await setUp(url, { ctx: first.ctx, subscriptionId: first.subscriptionId }, at + 3 * SECOND);
    await receiver.up();
    await second.t.app.webhooks.drain();
    expect(receiver.received).toEqual([]); // nothing due yet: the retry is minutes away
    second.t.clock.advance(2 * SECOND);
    await drive(second.t, second.ctx, [2]);
    await second.t.app.webhooks.drain();
    expect(typesOf(1)).toEqual(EVENTS);
    expect(typesOf(2)).toEqual(EVENTS);
    expect(receiver.delivered().every((r) => r.timestamp * 1000 <= at + 5 * SECOND)).toBe(true);
    await expectEachDeliveredOnce(second);
  });

  it('three instances draining the same store after the recovery send each event once, each PR in order', async () => {
    receiver = await new Receiver().start();
    const s = await setUp(await database.url());
    const instance = (instanceId: string) => {
      const app = createApp({
        db: s.t.db,
        clock: s.t.clock,
        forges: { git: s.t.forge, github: s.t.forge },
        pollIntervalMs: 60_000,
        instanceId,
        createCi: (onStatus) => Object.assign(new ScriptedCi(), { onStatus }),
      });
      stops.push(() => app.stop());
      return app;
    };
    const [b, c] = [instance('instance-b'), instance('instance-c')];
    await receiver.down();
    await drive(s.t, s.ctx, [1, 2, 3]);
    await s.t.app.webhooks.drain();
    s.t.clock.advance(RETRY_DELAYS_MS[0]!);
    await b.webhooks.drain();

    s.t.clock.advance(3 * SECOND);
    await receiver.up();
    await drive(s.t, s.ctx, [4]);
    await Promise.all([s.t.app.webhooks.drain(), b.webhooks.drain(), c.webhooks.drain()]);
    for (const pr of [1, 2, 3, 4]) expect(typesOf(pr)).toEqual(EVENTS);
    expect(receiver.received.length).toBe(16);
    await expectEachDeliveredOnce(s);
  });
});
