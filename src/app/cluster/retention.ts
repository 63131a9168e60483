/**
 * Finished work records are kept for `retentionMs` (the server's `retentionDays`; default
 * RETENTION_MS, 30 days), then deleted by a sweep every hour (and once at start): effects done or
 * failed, webhook messages delivered or given up with their attempts (listWebhookDeliveries shows
 * what is kept), queue events, CI retries left waiting for workflows (executor/check-reruns.ts) and the
 * audit log's entries (docs/audit-log.md). GitHub delivery ids, by which each delivery is processed once
 * (forge-webhooks.ts), are kept 14 days; CI statuses held for a commit no test run had yet
 * (executor/ci-outcome.ts), an hour. The queues' state, entries, test runs and transitions (PR
 * history and metrics) are never deleted by it. Every instance sweeps; the deletes are idempotent.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import { pruneFinished, type Pruned } from '../../store/retention.js';
import type { Clock } from '../../lib/clock.js';
import { DAY_MS, HOUR_MS } from '../../lib/time.js';
import { Periodic } from './periodic.js';

export const RETENTION_MS = 30 * DAY_MS;
/** Forges redeliver on request (GitHub for a few days). */
export const FORGE_DELIVERY_RETENTION_MS = 14 * DAY_MS;
/** A test run learns its commit within seconds of CI reporting on it (it is told before it is published), or never. */
export const EARLY_CI_STATUS_RETENTION_MS = HOUR_MS;
const SWEEP_INTERVAL_MS = HOUR_MS;

export class RetentionSweeper {
  private readonly periodic: Periodic;
  private readonly retentionMs: number;

  constructor(private readonly deps: { db: Kysely<Database>; clock: Clock; retentionMs?: number; logger?: Logger }) {
    this.retentionMs = deps.retentionMs ?? RETENTION_MS;
    this.periodic = new Periodic(async () => {
      await this.sweepOnce().catch((err: unknown) =>
        this.deps.logger?.warn({ err }, 'deleting finished work records failed; retried in an hour'),
      );
    }, SWEEP_INTERVAL_MS);
  }

  start(): void {
    this.periodic.start({ immediately: true });
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** Deletes what finished more than `retentionMs` ago. */
  async sweepOnce(): Promise<Pruned> {
    const now = this.deps.clock.now();
    const pruned = await pruneFinished(this.deps.db, {
      finished: now - this.retentionMs,
      forgeDeliveries: now - FORGE_DELIVERY_RETENTION_MS,
      earlyCiStatuses: now - EARLY_CI_STATUS_RETENTION_MS,
    });
    if (Object.values(pruned).some((n) => n > 0)) this.deps.logger?.info(pruned, 'finished work records deleted');
    return pruned;
  }
}
