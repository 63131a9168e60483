/**
 * The real MergeQueueService over a fresh store, with the fake forge and fake CI and a settable clock.
 * Nothing runs in the background: tests call `runEffects()` to execute the outbox.
 *
 * The store is the database of the test project (see databases.ts): in-memory SQLite in the `sqlite`
 * project, a migrated PostgreSQL database of its own while open in the `postgres` project;
 * `databaseUrl` overrides it.
 *
 *   const t = await createTestService();
 *   const { ctx } = await t.createOrg('acme');
 *   await t.connectRepo('acme', 'github.com/acme/web');
 *   t.forge.openPr('github.com/acme/web', { number: 1 });
 *   await t.service.createQueue(ctx, key, {});
 *   …
 *   await t.close();
 */
import { randomUUID } from 'node:crypto';
import { ScriptedCi } from '../doubles/scripted-ci.js';
import { InMemoryForge } from '../doubles/in-memory-forge.js';
import { ManualClock } from '../../src/lib/clock.js';
import { EVERY_SCOPE } from '../../src/app/scopes.js';
import { createApp, type App } from '../../src/app/create-app.js';
import { ensureOrg } from '../../src/app/admin/org-admin.js';
import { connectRepo as connectRepoRow, type ConnectRepoRequest } from '../../src/app/admin/repo-admin.js';
import { createApiToken } from '../../src/app/admin/tokens.js';
import type { AuthContext, MergeQueueService, QueueKey } from '../../src/app/service-port.js';
import { connect, type Db } from '../../src/store/connect.js';
import type { RepoRow } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { migratedServiceDatabase } from './databases.js';

export interface TestServiceOptions {
  /** A database URL (e.g. a PostgreSQL test database); default: the test project's database. */
  databaseUrl?: string;
  /** Start time of the clock (ms since the epoch). */
  now?: number;
  /** The server's public URL (dashboard links of chat notifications). */
  publicUrl?: string;
}

export interface TestService {
  service: MergeQueueService;
  db: Db;
  forge: InMemoryForge;
  ci: ScriptedCi;
  clock: ManualClock;
  app: App;
  /** Executes due effects (and what they cause) until none is due at the current clock time. */
  runEffects(): Promise<void>;
  createOrg(name: string): Promise<{ token: string; ctx: AuthContext }>;
  /** Connects `host/owner/name` to the org (created if missing); default CI command `true`. */
  connectRepo(org: string, slug: string, opts?: Partial<Omit<ConnectRepoRequest, 'org' | 'slug'>>): Promise<RepoRow>;
  /** The queue key of `host/owner/name` and a branch. */
  key(slug: string, targetBranch?: string): QueueKey;
  close(): Promise<void>;
}

export async function createTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const database = opts.databaseUrl
    ? { url: opts.databaseUrl, release: () => undefined }
    : await migratedServiceDatabase();
  const db = connect({ databaseUrl: database.url, dataDir: '' });
  await migrateToLatest(db);
  const clock = new ManualClock(opts.now);
  const forge = new InMemoryForge();
  const ci = new ScriptedCi();
  const app = createApp({
    db,
    clock,
    forges: { git: forge, github: forge },
    pollIntervalMs: 60_000,
    newId: randomUUID,
    ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
    createCi: (onStatus) => {
      ci.onStatus = onStatus;
      return ci;
    },
  });
  return {
    service: app.service,
    db,
    forge,
    ci,
    clock,
    app,
    runEffects: () => app.runner.drain(),
    async createOrg(name) {
      const org = await ensureOrg(db, name, clock.now());
      const { id, token } = await createApiToken(db, org.id, 'test', clock.now());
      return { token, ctx: { orgId: org.id, orgName: org.name, tokenId: id, scopes: EVERY_SCOPE } };
    },
    connectRepo: (org, slug, more = {}) =>
      connectRepoRow(db, { forge: 'git', ciCommand: 'true', ...more, org, slug }, clock.now()),
    key(slug, targetBranch = 'main') {
      const [host, owner, name] = slug.split('/') as [string, string, string];
      return { repo: { host, owner, name }, targetBranch };
    },
    async close() {
      await app.stop();
      await db.destroy();
      database.release();
    },
  };
}

export interface QueueFixture {
  t: TestService;
  ctx: AuthContext;
  key: QueueKey;
  /** `host/owner/name` of the connected repository. */
  repo: string;
}

/**
 * A test service with org `acme`, `github.com/acme/web` connected to it and (unless `queue: null`)
 * the queue of its `main` branch created with `queue` as its settings.
 */
export async function createQueueFixture(
  opts: TestServiceOptions & { queue?: Parameters<MergeQueueService['createQueue']>[2] | null } = {},
): Promise<QueueFixture> {
  const t = await createTestService(opts);
  const { ctx } = await t.createOrg('acme');
  const repo = 'github.com/acme/web';
  await t.connectRepo('acme', repo);
  const key = t.key(repo);
  if (opts.queue !== null) await t.service.createQueue(ctx, key, opts.queue ?? {});
  return { t, ctx, key, repo };
}
