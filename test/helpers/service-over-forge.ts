/**
 * The real service over in-memory SQLite with one forge adapter, as the tests of a forge and the
 * forge contract's worlds set it up: a manual clock at 2026-01-05 09:00 UTC, scripted CI, the org
 * `acme` and the repository connected; and, for a forge that sends webhooks, the worker that
 * processes the deliveries its endpoint stores (`webhooks`). Nothing runs in the background until a
 * test starts it.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { ensureOrg } from '../../src/app/admin/org-admin.js';
import { type ConnectRepoRequest, connectRepo } from '../../src/app/admin/repo-admin.js';
import { type App, createApp } from '../../src/app/create-app.js';
import { ForgeWebhooks, type ForgeWebhooksDeps } from '../../src/app/observing/forge-webhooks.js';
import { EVERY_SCOPE } from '../../src/app/scopes.js';
import type { AuthContext } from '../../src/app/service-port.js';
import type { ForgePort, RepoBinding } from '../../src/forge/port.js';
import { ManualClock } from '../../src/lib/clock.js';
import { connect, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { ScriptedCi } from '../doubles/scripted-ci.js';

export const silentLogger = pino({ level: 'silent' });

export interface ServiceOverForge {
  db: Db;
  clock: ManualClock;
  app: App;
  ci: ScriptedCi;
  /** The org `acme`'s context with every scope. */
  ctx: AuthContext;
  /** The worker of the forge's stored webhook deliveries, with the adapter's reading of them. */
  webhooks(read: Pick<ForgeWebhooksDeps, 'translate' | 'observeAccess'>): ForgeWebhooks;
  /** Stops the service and closes its database. */
  close(): Promise<void>;
}

export async function serviceOverForge(opts: {
  forge: RepoBinding['forge'];
  /** The adapter, on the service's clock. */
  adapter: (clock: ManualClock) => ForgePort;
  /** The repository connected to org `acme` (its slug, and any setting of `repo connect`). */
  connect: Omit<ConnectRepoRequest, 'org' | 'forge'>;
  pollIntervalMs: number;
}): Promise<ServiceOverForge> {
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
  const adapter = opts.adapter(clock);
  const db = connect({ databaseUrl: 'sqlite::memory:', dataDir: '' });
  await migrateToLatest(db);
  const ci = new ScriptedCi();
  const app = createApp({
    db,
    clock,
    forges: { [opts.forge]: adapter },
    pollIntervalMs: opts.pollIntervalMs,
    newId: randomUUID,
    createCi: (onStatus) => {
      ci.onStatus = onStatus;
      return ci;
    },
  });
  const org = await ensureOrg(db, 'acme', clock.now());
  const ctx: AuthContext = { orgId: org.id, orgName: org.name, tokenId: 'test', scopes: EVERY_SCOPE };
  await connectRepo(db, { org: 'acme', forge: opts.forge, ...opts.connect }, clock.now());
  return {
    db,
    clock,
    app,
    ci,
    ctx,
    webhooks: (read) =>
      new ForgeWebhooks({
        db,
        clock,
        observations: app.forgeObservations,
        forge: opts.forge,
        ...read,
        logger: silentLogger,
      }),
    async close() {
      await app.stop();
      await db.destroy();
    },
  };
}
