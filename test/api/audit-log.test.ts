/**
 * The audit log (docs/audit-log.md): every kind of change is recorded with who, what and from where —
 * API v1 and v2, the CLI's admin functions, forge users' comment commands and labels, and the queue's
 * own decisions — read back by POST /v1/listAuditEvents with filters and paging; secrets never appear;
 * entries go with the retention sweep. On both databases.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETENTION_MS } from '../../src/app/cluster/retention.js';
import { createApiToken, revokeToken } from '../../src/app/admin/tokens.js';
import { disconnectRepo } from '../../src/app/admin/repo-admin.js';
import { findRepo } from '../../src/store/repos.js';
import type { Json } from '../helpers/json.js';
import { createApiHarness, errorOf, json, REPO, SLUG, type ApiHarness } from './api-harness.js';
import { v2Client } from './v2-client.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
});
afterEach(() => h.close());

const TERRAFORM = { 'user-agent': 'Terraform/1.9.0 terraform-provider-trunk/0.4', 'x-source': 'terraform' };

/** Every entry matching `filters`, following the cursor. */
async function events(filters: Record<string, unknown> = {}): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | undefined;
  do {
    const res = await h.post('/v1/listAuditEvents', { ...filters, ...(cursor ? { cursor } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    out.push(...json(res).events);
    cursor = json(res).nextCursor;
  } while (cursor);
  return out;
}

const actions = (list: Json[]) => list.map((e) => e.action);

describe('the audit log', () => {
  it('records v1 changes with the token, the target, old → new settings and where the request came from', async () => {
    await h.queueWithPrs(1);
    expect((await h.post('/v1/updateQueue', h.body({ concurrency: 3, batch: true }), TERRAFORM)).statusCode).toBe(200);
    expect((await h.post('/v1/updateQueue', h.body({ state: 'paused' }))).statusCode).toBe(200);
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 }, priority: 'high' }))).statusCode).toBe(
      200,
    );
    expect((await h.post('/v1/cancelPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);

    const log = await events();
    // Newest first; the org and token made by the harness come first in time.
    expect(actions(log)).toEqual([
      'pull_request.cancel',
      'pull_request.submit',
      'queue.pause',
      'queue.update',
      'queue.create',
      'repo.connect',
      'token.create',
      'org.create',
    ]);
    const tokenId = log[0].actor.id;
    expect(log[0]).toMatchObject({
      actor: { kind: 'token', id: tokenId, name: 'test' },
      target: { org: 'acme', repo: SLUG, targetBranch: 'main', pr: 1, reason: 'API_REQUESTED' },
      changes: null,
      source: { address: '127.0.0.1', userAgent: 'lightMyRequest' },
    });
    expect(log[1].target).toMatchObject({ pr: 1, priority: 'high' });
    expect(log[2].changes).toEqual({ state: { from: 'RUNNING', to: 'PAUSED' } });
    expect(log[3]).toMatchObject({
      changes: { concurrency: { from: 1, to: 3 }, batch: { from: false, to: true } },
      source: { userAgent: TERRAFORM['user-agent'], xSource: 'terraform' },
    });
    expect(Object.keys(log[3].changes)).toEqual(['concurrency', 'batch']);
    expect(Date.parse(log[0].at)).toBe(h.t.clock.now());
    // The harness's own set-up was done by greenline itself (no caller given).
    expect(log.at(-1)!.actor).toEqual({ kind: 'system', id: 'system', name: 'greenline' });
  });

  it('records v2 changes (what Terraform uses) through the same service', async () => {
    await h.queueWithPrs(0);
    const v2 = v2Client(h);
    const queues = json(await v2.call('GET', '/v2/merge-queues'));
    const id = queues.data[0].id;
    expect((await v2.call('POST', `/v2/merge-queues/${id}/pause`, undefined, TERRAFORM)).statusCode).toBe(200);
    const [paused] = await events({ action: 'queue.pause' });
    expect(paused).toMatchObject({
      actor: { kind: 'token', name: 'test' },
      target: { repo: SLUG, targetBranch: 'main' },
      changes: { state: { from: 'RUNNING', to: 'PAUSED' } },
      source: { xSource: 'terraform', userAgent: TERRAFORM['user-agent'] },
    });
  });

  it("records forge users' comment commands and labels under their login", async () => {
    await h.queueWithPrs(1);
    await h.post(
      '/v1/updateQueue',
      h.body({ commandsEnabled: true, labelCommandsEnabled: true, enqueueingLabel: 'merge' }),
    );
    const repo = (await findRepo(h.t.db, 'github.com', 'acme', 'web'))!;
    const queues = await h.t.db.selectFrom('queues').selectAll().execute();
    const apply = (o: Parameters<typeof h.t.app.forgeObservations.apply>[2]) =>
      h.t.app.forgeObservations.apply(repo, queues, o);
    await apply({ kind: 'prLabel', prNumber: 1, baseBranch: 'main', label: 'merge', added: true, sender: 'octocat' });
    await apply({ kind: 'prComment', prNumber: 1, command: { kind: 'cancel' }, author: 'alice' });

    const [cancel, submit] = await events({ repo: REPO }).then((l) =>
      l.filter((e) => e.action.startsWith('pull_request.')),
    );
    expect(submit).toMatchObject({
      action: 'pull_request.submit',
      actor: { kind: 'forge_user', id: 'octocat', name: 'octocat' },
      target: { repo: SLUG, pr: 1 },
      source: null,
    });
    expect(cancel).toMatchObject({
      action: 'pull_request.cancel',
      actor: { kind: 'forge_user', id: 'alice', name: 'alice' },
      target: { pr: 1, reason: 'USER_REQUESTED' },
    });
    expect((await events({ actor: 'alice' })).map((e) => e.action)).toEqual(['pull_request.cancel']);
  });

  it("records the queue's own decisions as system: a PR cancelled when closed, one merged outside, a finished mode switch", async () => {
    await h.queueWithPrs(3);
    for (const number of [1, 2, 3]) await h.post('/v1/submitPullRequest', h.body({ pr: { number } }));
    await h.t.runEffects();
    // What the set-up did (org, token, repository, by greenline itself) is left out by time.
    h.t.clock.advance(1000);
    const since = new Date(h.t.clock.now()).toISOString();
    const repo = (await findRepo(h.t.db, 'github.com', 'acme', 'web'))!;
    const queues = await h.t.db.selectFrom('queues').selectAll().execute();
    h.t.forge.closePr(SLUG, 1);
    await h.t.app.forgeObservations.apply(repo, queues, { kind: 'prClosed', prNumber: 1, merged: false });
    await h.t.app.forgeObservations.apply(repo, queues, { kind: 'prClosed', prNumber: 2, merged: true });
    // A mode change with PRs queued waits for them; the queue switches by itself once the last is gone.
    await h.post('/v1/updateQueue', h.body({ mode: 'parallel' }));
    expect(json(await h.post('/v1/getQueue', h.body())).state).toBe('SWITCHING_MODES');
    await h.post('/v1/cancelPullRequest', h.body({ pr: { number: 3 } }));
    expect(json(await h.post('/v1/getQueue', h.body())).state).toBe('RUNNING');

    const system = await events({ actor: 'system', from: since });
    expect(system.map((e) => [e.action, e.target.pr ?? null, e.target.reason ?? null, e.changes])).toEqual([
      ['queue.state_change', null, null, { state: { from: 'SWITCHING_MODES', to: 'RUNNING' } }],
      ['pull_request.merged_outside', 2, null, null],
      ['pull_request.cancel', 1, 'PR_CLOSED', null],
    ]);
    expect(system.every((e) => e.actor.kind === 'system' && e.source === null)).toBe(true);
  });

  it("records the CLI's admin changes (tokens, repositories) under the OS user", async () => {
    const cli = { cliUser: 'ops-alice' };
    const orgId = (await h.t.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id;
    const { id } = await createApiToken(h.t.db, orgId, 'deploy', h.t.clock.now(), { scopes: ['read'] }, cli);
    expect(await revokeToken(h.t.db, id, h.t.clock.now(), cli)).toBe(true);
    expect(await revokeToken(h.t.db, id, h.t.clock.now(), cli)).toBe(false);
    await disconnectRepo(h.t.db, SLUG, cli, h.t.clock.now());

    const byCli = await events({ actor: 'ops-alice' });
    expect(byCli.map((e) => [e.action, e.actor.kind, e.target])).toEqual([
      ['repo.disconnect', 'cli', { repo: SLUG }],
      ['token.revoke', 'cli', { token: id, name: 'deploy' }],
      ['token.create', 'cli', { token: id, name: 'deploy', scopes: ['read'] }],
    ]);
  });

  it('never holds a secret: token secrets, webhook secrets, chat URLs, Authorization headers', async () => {
    const slack = 'https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX';
    const created = json(
      await h.post('/v1/createWebhook', { url: 'https://hooks.example.com/greenline?token=hook-secret' }),
    );
    const rotated = json(await h.post('/v1/rotateWebhookSecret', { id: created.id }));
    expect((await h.post('/v1/createNotificationChannel', { kind: 'slack', url: slack })).statusCode).toBe(200);
    const v2 = v2Client(h);
    await v2.call('GET', '/v2/merge-queues');

    const raw = JSON.stringify(await h.t.db.selectFrom('audit_events').selectAll().execute());
    for (const secret of [h.token, created.secret, rotated.secret, 'hook-secret', 'XXXXsecretXXXX', 'B000', 'Bearer'])
      expect(raw).not.toContain(secret);
    const log = await events();
    expect(actions(log).slice(0, 3)).toEqual([
      'notification_channel.create',
      'webhook.rotate_secret',
      'webhook.create',
    ]);
    expect(log[0].target).toMatchObject({ kind: 'slack', host: 'hooks.slack.com' });
    expect(log[2].target).toEqual({ webhook: created.id, host: 'hooks.example.com' });
  });

  it('filters by repository, branch, action, actor and time, and pages by cursor + take', async () => {
    await h.queueWithPrs(5);
    for (const number of [1, 2, 3, 4, 5]) {
      h.t.clock.advance(1000);
      await h.post('/v1/submitPullRequest', h.body({ pr: { number } }));
    }
    h.t.forge.pushToBranch(SLUG, 'release');
    await h.post('/v1/createQueue', h.body({ targetBranch: 'release' }));

    const first = json(await h.post('/v1/listAuditEvents', { action: 'pull_request.submit', take: 2 }));
    expect(first.events.map((e: Json) => e.target.pr)).toEqual([5, 4]);
    const second = json(
      await h.post('/v1/listAuditEvents', { action: 'pull_request.submit', take: 2, cursor: first.nextCursor }),
    );
    expect(second.events.map((e: Json) => e.target.pr)).toEqual([3, 2]);
    const last = json(
      await h.post('/v1/listAuditEvents', { action: 'pull_request.submit', take: 2, cursor: second.nextCursor }),
    );
    expect([last.events.map((e: Json) => e.target.pr), last.nextCursor]).toEqual([[1], undefined]);

    const start = h.t.clock.now() - 5000;
    const window = await events({
      action: 'pull_request.submit',
      from: new Date(start + 2000).toISOString(),
      to: new Date(start + 3000).toISOString(),
    });
    expect(window.map((e) => e.target.pr)).toEqual([3, 2]);
    const repoUpper = { host: 'github.com', owner: 'ACME', name: 'Web' };
    expect(actions(await events({ repo: repoUpper, targetBranch: 'release' }))).toEqual(['queue.create']);
    expect((await events({ repo: REPO, targetBranch: 'main' })).length).toBe(6);
    expect((await events({ repo: { host: 'github.com', owner: 'acme', name: 'api' } })).length).toBe(0);
  });

  it('refuses bad filters with 400 naming the field', async () => {
    const bad = async (body: Record<string, unknown>) => errorOf(await h.post('/v1/listAuditEvents', body));
    expect(await bad({ take: 0 })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/take/),
    });
    expect(await bad({ action: 'queue.explode' })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/action/),
    });
    expect(await bad({ from: 'yesterday' })).toMatchObject({ status: 400, message: expect.stringMatching(/from/) });
    expect(await bad({ cursor: '999999' })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/cursor is not a nextCursor/),
    });
    expect(await bad({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/from must not be later than to/),
    });
    expect(await bad({ repo: 'github.com/acme/web' })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/repo/),
    });
  });

  it("deletes entries older than the server's retention with the retention sweep", async () => {
    await h.queueWithPrs(0);
    const before = (await events()).length;
    h.t.clock.advance(RETENTION_MS + 1000);
    await h.post('/v1/updateQueue', h.body({ state: 'paused' }));
    expect((await h.t.app.retention.sweepOnce()).auditEvents).toBe(before);
    expect(actions(await events())).toEqual(['queue.pause']);
  });

  it('is readable only with the admin or audit:read scope', async () => {
    const orgId = (await h.t.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id;
    const now = h.t.clock.now();
    const reader = await createApiToken(h.t.db, orgId, 'reader', now, { scopes: ['read'] });
    const auditor = await createApiToken(h.t.db, orgId, 'auditor', now, { scopes: ['audit:read'] });
    const refused = await h.post('/v1/listAuditEvents', {}, { 'x-api-token': reader.token });
    expect(errorOf(refused)).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect((await h.post('/v1/listAuditEvents', {}, { 'x-api-token': auditor.token })).statusCode).toBe(200);
  });
});
