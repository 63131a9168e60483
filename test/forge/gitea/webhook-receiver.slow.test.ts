/**
 * POST /webhooks/gitea over real HTTP, fed the captured Gitea and Forgejo payloads signed as each
 * forge signs them (signedDelivery: every header the forge sends): verified deliveries are stored as
 * the gitea forge's and processed in the background into observations; unsigned, tampered and wrongly
 * signed ones are 401 and nothing is stored; events greenline does not read are answered `ignored`
 * with a sentence saying so; the github forge's worker leaves gitea deliveries alone.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readGiteaDelivery } from '../../../src/forge/gitea/webhook-events.js';
import { giteaForge } from '../../../src/forge/gitea/index.js';
import { readGitHubDelivery } from '../../../src/forge/github/observations.js';
import { buildHttpApp } from '../../../src/api/build-app.js';
import { connectRepo } from '../../../src/app/admin/repo-admin.js';
import { ForgeWebhooks } from '../../../src/app/observing/forge-webhooks.js';
import type { ForgeObservation } from '../../../src/forge/observations.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { connect, type Db } from '../../../src/store/connect.js';
import { migrateToLatest } from '../../../src/store/migrations/index.js';
import type { MergeQueueService } from '../../../src/app/service-port.js';
import type { Json } from '../../helpers/json.js';
import { capturedPayload, type Dialect, signedDelivery } from './fake-gitea-api.js';

const SECRET = 'greenline-test-secret';

let db: Db;
let clock: ManualClock;
let applied: { repo: string; o: ForgeObservation }[];
let webhooks: ForgeWebhooks;
let close: () => Promise<void>;
let url: string;

beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
  db = connect({ databaseUrl: 'sqlite::memory:', dataDir: '' });
  await migrateToLatest(db);
  for (const slug of [
    'gitea.com/anbraten/test-repo',
    'codeberg.org/test_it/test_ci_thing',
    '127.0.0.1/Test-CI/multi-line-secrets',
  ])
    await connectRepo(db, { org: 'acme', slug, forge: 'gitea', remote: `https://${slug.split('/')[0]}` }, clock.now());
  await connectRepo(db, { org: 'acme', slug: 'forgejo.com/anbraten/test-repo', forge: 'github' }, clock.now());
  applied = [];
  webhooks = new ForgeWebhooks({
    db,
    clock,
    forge: 'gitea',
    translate: readGiteaDelivery,
    observations: {
      async apply(repo, _queues, o) {
        applied.push({ repo: `${repo.host}/${repo.owner}/${repo.name}`, o });
        return true;
      },
    },
  });
  // The endpoint answers only for the service's webhook routes: no other call reaches the service.
  const http = await buildHttpApp({
    service: {} as MergeQueueService,
    logger: false,
    enumCase: 'upper',
    forgeWebhooks: [{ webhook: giteaForge.webhook!, secret: SECRET, receive: webhooks.receive }],
  });
  url = await http.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await http.close();
    await db.destroy();
  };
});
afterEach(() => close());

async function post(headers: Record<string, string>, body: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${url}/webhooks/gitea`, { method: 'POST', headers, body });
  return { status: res.status, body: await res.json() };
}

const send = (dialect: Dialect, eventType: string, payload: unknown, secret = SECRET) => {
  const d = signedDelivery(dialect, eventType, payload, secret);
  return post(d.headers, d.body);
};

const stored = () => db.selectFrom('forge_deliveries').select(['id', 'forge', 'event', 'status', 'result']).execute();

describe('POST /webhooks/gitea', () => {
  it('stores each signed delivery of both dialects that concerns a connected repository, and processes it in the background', async () => {
    const deliveries: [Dialect, string, string][] = [
      ['gitea', 'pull_request_label', 'gitea.pull_request.closed-merged'],
      ['forgejo', 'pull_request_sync', 'forgejo.pull_request.synchronized'],
      ['forgejo', 'pull_request_label', 'forgejo.pull_request.label_updated'],
      ['gitea', 'pull_request_sync', 'gitea.pull_request.synchronized'],
      ['gitea', 'pull_request', 'gitea.pull_request.reopened'],
      ['gitea', 'push', 'gitea.push-multi-commit'],
    ];
    for (const [dialect, type, name] of deliveries) {
      const res = await send(dialect, type, capturedPayload(name));
      expect(res, name).toMatchObject({ status: 200, body: { result: 'accepted' } });
      expect(res.body.event).toBe(type === 'push' ? 'push' : 'pull_request');
      clock.advance(1); // processed in the order received
    }
    expect(applied).toEqual([]); // answered before it is processed
    expect((await stored()).map((r) => [r.forge, r.status])).toEqual(deliveries.map(() => ['gitea', 'pending']));
    await webhooks.drain();
    expect(applied).toEqual([
      { repo: 'gitea.com/anbraten/test-repo', o: { kind: 'prClosed', prNumber: 1, merged: true } },
      { repo: '127.0.0.1/Test-CI/multi-line-secrets', o: { kind: 'prTouched', prNumber: 2 } },
      {
        repo: 'codeberg.org/test_it/test_ci_thing',
        o: {
          kind: 'prLabels',
          prNumber: 1,
          baseBranch: 'main',
          labels: ['Kind/Enhancement', 'Kind/Testing'],
          sender: '6543',
        },
      },
      { repo: 'codeberg.org/test_it/test_ci_thing', o: { kind: 'prTouched', prNumber: 1 } },
      { repo: '127.0.0.1/Test-CI/multi-line-secrets', o: { kind: 'prTouched', prNumber: 2 } },
      { repo: 'codeberg.org/test_it/test_ci_thing', o: { kind: 'prTouched', prNumber: 1 } },
      { repo: '127.0.0.1/Test-CI/multi-line-secrets', o: { kind: 'branchPushed', branch: 'main' } },
    ]);
    expect((await stored()).every((r) => r.status === 'done' && r.result === 'processed')).toBe(true);
  });

  it('a delivery for a repository connected with another forge, or none, is ignored and not stored', async () => {
    // forgejo.com/anbraten/test-repo is connected with the github forge.
    const other = await send('forgejo', 'pull_request', capturedPayload('forgejo.pull_request.closed'));
    expect(other.body).toMatchObject({
      result: 'ignored',
      detail: expect.stringMatching(/names no repository connected with this forge/),
    });
    expect((await send('gitea', 'push', capturedPayload('gitea.push'))).body.result).toBe('ignored');
    expect(await stored()).toEqual([]);
  });

  it('refuses unsigned, tampered and wrongly signed deliveries with 401 and stores nothing', async () => {
    const payload = capturedPayload('gitea.pull_request.closed-merged');
    // A webhook without a secret: Gitea sends the signature headers empty.
    const unsigned = signedDelivery('gitea', 'pull_request', payload, '');
    expect(await post(unsigned.headers, unsigned.body)).toEqual({
      status: 401,
      body: {
        error: { code: 'WEBHOOK_SIGNATURE_INVALID', message: expect.stringMatching(/is missing.*giteaWebhookSecret/) },
      },
    });
    const signed = signedDelivery('forgejo', 'pull_request', payload, SECRET);
    const tampered = await post(signed.headers, signed.body.replace('"merged": true', '"merged": false'));
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.message).toMatch(/does not match the body/);
    expect((await send('gitea', 'pull_request', payload, 'another secret')).status).toBe(401);
    const garbage = await post(
      { ...signed.headers, 'x-forgejo-signature': 'zz', 'x-gitea-signature': 'zz' },
      signed.body,
    );
    expect(garbage.status).toBe(401);
    expect(await stored()).toEqual([]);
    await webhooks.drain();
    expect(applied).toEqual([]);
  });

  it("verifies Forgejo's own headers, Gitea's, or the GitHub-style sha256= one alone", async () => {
    const payload = capturedPayload('gitea.pull_request.closed-merged');
    const body = JSON.stringify(payload);
    const hex = createHmac('sha256', SECRET).update(body).digest('hex');
    const base = { 'content-type': 'application/json' };
    const forgejo = await post(
      { ...base, 'x-forgejo-event': 'pull_request', 'x-forgejo-delivery': 'f-1', 'x-forgejo-signature': hex },
      body,
    );
    expect(forgejo).toEqual({ status: 200, body: { delivery: 'f-1', event: 'pull_request', result: 'accepted' } });
    const gitea = await post(
      { ...base, 'x-gitea-event': 'pull_request', 'x-gitea-delivery': 'g-1', 'x-gitea-signature': hex },
      body,
    );
    expect(gitea.body).toEqual({ delivery: 'g-1', event: 'pull_request', result: 'accepted' });
    const hub = await post(
      { ...base, 'x-gitea-event': 'pull_request', 'x-gitea-delivery': 'h-1', 'x-hub-signature-256': `sha256=${hex}` },
      body,
    );
    expect(hub.body.result).toBe('accepted');
    expect((await stored()).map((r) => r.id).sort()).toEqual(['f-1', 'g-1', 'h-1']);
  });

  it('accepts the form-encoded content type, whose signature is over the payload JSON, not the form', async () => {
    const json = JSON.stringify(capturedPayload('gitea.pull_request.closed-merged'));
    const hex = createHmac('sha256', SECRET).update(json).digest('hex');
    const res = await post(
      {
        'content-type': 'application/x-www-form-urlencoded',
        'x-gitea-event': 'pull_request',
        'x-gitea-delivery': 'form-1',
        'x-gitea-signature': hex,
      },
      new URLSearchParams({ payload: json }).toString(),
    );
    expect(res.body).toEqual({ delivery: 'form-1', event: 'pull_request', result: 'accepted' });
  });

  it('answers a repeated delivery id as a duplicate, processed once', async () => {
    const d = signedDelivery('gitea', 'pull_request', capturedPayload('gitea.pull_request.closed-merged'), SECRET);
    expect((await post(d.headers, d.body)).body.result).toBe('accepted');
    expect((await post(d.headers, d.body)).body).toEqual({
      delivery: d.headers['x-gitea-delivery'],
      event: 'pull_request',
      result: 'duplicate',
    });
    await webhooks.drain();
    expect(applied).toHaveLength(1);
  });

  it('answers events greenline does not read with a sentence naming those it reads', async () => {
    const res = await send(
      'gitea',
      'pull_request_review_approved',
      capturedPayload('gitea.pull_request_review.approved'),
    );
    expect(res).toEqual({
      status: 200,
      body: {
        delivery: expect.any(String),
        event: 'pull_request_approved',
        result: 'ignored',
        detail:
          'greenline does not read pull_request_approved events of Gitea; it reads pull_request, push, status, issue_comment: the webhook may leave the others out',
      },
    });
  });

  it('a signed body that is not JSON is 400 INVALID_JSON; a delivery without its event headers is 400', async () => {
    const body = '{"action": ';
    const hex = createHmac('sha256', SECRET).update(body).digest('hex');
    const bad = await post(
      {
        'content-type': 'application/json',
        'x-gitea-event': 'push',
        'x-gitea-delivery': 'd1',
        'x-gitea-signature': hex,
      },
      body,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_JSON');
    const noEvent = await post(
      {
        'content-type': 'application/json',
        'x-gitea-signature': createHmac('sha256', SECRET).update('{}').digest('hex'),
      },
      '{}',
    );
    expect(noEvent.status).toBe(400);
    expect(noEvent.body.error.message).toMatch(/X-Gitea-Event and X-Gitea-Delivery/);
  });

  it("the github forge's worker leaves the gitea forge's deliveries to their own worker", async () => {
    expect((await send('gitea', 'push', capturedPayload('gitea.push-multi-commit'))).body.result).toBe('accepted');
    const github = new ForgeWebhooks({
      db,
      clock,
      forge: 'github',
      translate: readGitHubDelivery,
      observations: { apply: async () => true },
    });
    await github.drain();
    expect(await stored()).toMatchObject([{ forge: 'gitea', status: 'pending' }]);
    await webhooks.drain();
    expect(await stored()).toMatchObject([{ forge: 'gitea', status: 'done', result: 'processed' }]);
  });
});
