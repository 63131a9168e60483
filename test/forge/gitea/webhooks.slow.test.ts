/**
 * A Gitea and a Forgejo repository driven end to end by their webhooks: the real service over SQLite
 * with the real gitea forge talking to the fake forge (checked against its Swagger document), and the
 * fake posting deliveries, signed as the forge signs them, to the real POST /webhooks/gitea over HTTP.
 * A `/greenline merge` comment submits the PR; the test commit's status (Gitea's `status` event, or on
 * Forgejo, which has none, the next poll reading the statuses of each run under test) merges it; a
 * status whose delivery greenline missed (neither forge delivers again) is read at the next poll, one
 * request per run; a comment from someone without write access is answered why; the enqueueing
 * label removed cancels.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitForge } from '../../../src/forge/git/index.js';
import { GiteaForge, readGiteaDelivery, giteaForge } from '../../../src/forge/gitea/index.js';
import { buildHttpApp } from '../../../src/api/build-app.js';
import { ensureOrg } from '../../../src/app/admin/org-admin.js';
import { connectRepo } from '../../../src/app/admin/repo-admin.js';
import { type App, createApp } from '../../../src/app/create-app.js';
import { ForgeWebhooks } from '../../../src/app/observing/forge-webhooks.js';
import type { AuthContext, QueueKey } from '../../../src/app/service-port.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { EVERY_SCOPE } from '../../../src/app/scopes.js';
import { connect, type Db } from '../../../src/store/connect.js';
import { migrateToLatest } from '../../../src/store/migrations/index.js';
import { ScriptedCi } from '../../doubles/scripted-ci.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { type Dialect, FakeGiteaApi } from './fake-gitea-api.js';

const SECRET = 'greenline-test-secret';
const logger = pino({ level: 'silent' });

describe.each<Dialect>(['gitea', 'forgejo'])('%s webhooks, end to end', (dialect) => {
  let fake: FakeGiteaApi;
  let dataDir: string;
  let db: Db;
  let app: App;
  let clock: ManualClock;
  let webhooks: ForgeWebhooks;
  let closeHttp: () => Promise<void>;
  let ctx: AuthContext;
  let key: QueueKey;

  beforeEach(async () => {
    fake = await FakeGiteaApi.start(dialect);
    fake.allowManualMerge = true;
    dataDir = await makeTempDir('greenline-gitea-hooks-');
    clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
    db = connect({ databaseUrl: 'sqlite::memory:', dataDir: '' });
    await migrateToLatest(db);
    const forge = new GiteaForge({
      url: fake.url,
      token: fake.token,
      git: createGitForge({ dataDir, logger, fetchTtlMs: 0 }),
      logger,
    });
    const ci = new ScriptedCi();
    app = createApp({
      db,
      clock,
      forges: { gitea: forge },
      webhookForges: ['gitea'],
      pollIntervalMs: 60_000,
      newId: randomUUID,
      createCi: (onStatus) => {
        ci.onStatus = onStatus;
        return ci;
      },
    });
    const org = await ensureOrg(db, 'acme', clock.now());
    ctx = { orgId: org.id, orgName: org.name, tokenId: 'test', scopes: EVERY_SCOPE };
    await connectRepo(db, { org: 'acme', slug: '127.0.0.1/acme/web', forge: 'gitea', remote: fake.url }, clock.now());
    webhooks = new ForgeWebhooks({
      db,
      clock,
      observations: app.forgeObservations,
      forge: 'gitea',
      translate: readGiteaDelivery,
    });
    const http = await buildHttpApp({
      service: app.service,
      logger: false,
      enumCase: 'upper',
      forgeWebhooks: [{ webhook: giteaForge.webhook!, secret: SECRET, receive: webhooks.receive }],
    });
    const url = await http.listen({ port: 0, host: '127.0.0.1' });
    fake.hooks.push({ url: `${url}/webhooks/gitea`, secret: SECRET });
    closeHttp = () => http.close();
    key = { repo: { host: '127.0.0.1', owner: 'acme', name: 'web' }, targetBranch: 'main' };
    await app.service.createQueue(ctx, key, {});
    await app.service.updateQueue(ctx, key, {
      requiredStatuses: ['ci/build'],
      enqueueingLabel: 'merge',
      labelCommandsEnabled: true,
    });
    const main = (await fake.branchSha('main'))!;
    await fake.openPr(1, {
      headSha: await fake.commit(main, { 'a.txt': 'a\n' }, 'Add a'),
      title: 'Add a',
      user: 'ada',
    });
  });
  afterEach(async () => {
    await closeHttp();
    await app.stop();
    await db.destroy();
    await fake.close();
    await removeTempDir(dataDir);
  });

  /** The fake posts a delivery; the stored deliveries are processed, then what they caused. */
  const deliver = async (eventType: string, payload: Record<string, unknown>): Promise<unknown[]> => {
    const answers = await fake.deliver(eventType, payload);
    await webhooks.drain();
    await app.runner.drain();
    return answers.map((a) => ({ status: a.status, ...JSON.parse(a.body) }));
  };
  const entry = async () => (await app.service.getSubmittedPullRequest(ctx, key, { number: 1 })).entry;

  it('a /greenline merge comment submits the PR; the test commit passing merges it, shown merged on the forge', async () => {
    const answers = await deliver(
      'pull_request_comment',
      fake.commentPayload(1, fake.addComment(1, '/greenline merge', 'ada')),
    );
    expect(answers).toEqual([
      { status: 200, delivery: expect.any(String), event: 'issue_comment', result: 'accepted' },
    ]);
    const testing = await entry();
    expect(testing.state).toBe('TESTING');
    const branch = (await fake.refSha(`refs/heads/greenline-merge/pr-1/${testing.runId}`))!;
    const status = fake.addStatus(branch, 'ci/build', 'success');
    if (dialect === 'gitea') {
      expect(await deliver('status', fake.statusPayload(status))).toMatchObject([{ status: 200, result: 'accepted' }]);
    } else {
      // Forgejo sends no status event: the next poll reads the statuses of the run under test.
      await app.poller.pollOnce();
      await app.runner.drain();
    }
    expect((await entry()).state).toBe('MERGED');
    expect(fake.pull(1).merged).toBe(true);
    expect(await fake.fileAt('main', 'a.txt')).toBe('a\n');
  });

  it('a status whose delivery was missed is read at the next poll, with one status request for the run', async () => {
    await deliver('pull_request_comment', fake.commentPayload(1, fake.addComment(1, '/greenline merge', 'ada')));
    const testing = await entry();
    const branch = (await fake.refSha(`refs/heads/greenline-merge/pr-1/${testing.runId}`))!;
    await app.poller.pollOnce();
    await app.runner.drain();
    expect((await entry()).state).toBe('TESTING');
    // CI reports while greenline does not hear it (down, or no status event): nothing is delivered.
    fake.addStatus(branch, 'ci/build', 'success');
    fake.calls.length = 0;
    clock.advance(60_000);
    await app.poller.pollOnce();
    expect(fake.calls.filter((c) => c.path.includes('/status')).map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /repos/acme/web/commits/${branch}/status?page=1&limit=50`,
    ]);
    await app.runner.drain();
    expect((await entry()).state).toBe('MERGED');
    expect(fake.pull(1).merged).toBe(true);
  });

  it("after a retry on the same commit, the earlier attempt's statuses read from the forge do not decide", async () => {
    fake.now = () => clock.now();
    await app.service.updateQueue(ctx, key, { ciRetries: 1 });
    await deliver('pull_request_comment', fake.commentPayload(1, fake.addComment(1, '/greenline merge', 'ada')));
    const { runId } = await entry();
    const branch = (await fake.refSha(`refs/heads/greenline-merge/pr-1/${runId}`))!;
    const poll = async () => {
      clock.advance(60_000);
      await app.poller.pollOnce();
      await app.runner.drain();
    };
    fake.addStatus(branch, 'ci/build', 'failure');
    await poll();
    // Failed once, tested again: the failure the forge still holds for the commit is the first attempt's.
    expect(await entry()).toMatchObject({ state: 'TESTING', runId });
    await poll();
    expect((await entry()).state).toBe('TESTING');
    fake.addStatus(branch, 'ci/build', 'success');
    await poll();
    expect((await entry()).state).toBe('MERGED');
  });

  it('a comment from someone without write permission is answered on the PR, and changes nothing', async () => {
    fake.users.set('mallory', 'read');
    await deliver('pull_request_comment', fake.commentPayload(1, fake.addComment(1, '/greenline merge', 'mallory')));
    await expect(entry()).rejects.toThrow(/never been submitted/);
    expect(fake.comments.at(-1)).toMatchObject({
      user: fake.tokenUser,
      body: expect.stringMatching(/^@mallory: greenline ignored the command: /),
    });
  });

  it('the enqueueing label submits the PR; removing it (label_cleared) cancels it', async () => {
    fake.pull(1).labels.push(fake.label('merge'));
    fake.users.set('ada', 'write');
    await deliver(
      'pull_request_label',
      await fake.pullRequestPayload('label_updated', 1, { sender: fake.userJson('ada') }),
    );
    expect((await entry()).state).not.toBe('CANCELLED');
    fake.pull(1).labels.length = 0;
    await deliver(
      'pull_request_label',
      await fake.pullRequestPayload('label_cleared', 1, { sender: fake.userJson('ada') }),
    );
    expect(await entry()).toMatchObject({ state: 'CANCELLED', lastReason: 'USER_REQUESTED' });
  });
});
