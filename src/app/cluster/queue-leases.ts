/**
 * This instance's share of the queues. Every instance serves every request, but each queue is driven
 * (its effects executed, its forge polled, its timers fired) by one instance at a time: the holder of
 * the queue's lease (store/queue-leases.ts). Every third of the lease length the instance renews the
 * leases it holds and takes those that are free or expired, so the queues of an instance that died
 * are taken over within one lease length. On SQLite (one instance) this instance simply holds them all.
 *
 * Besides, a round is due the moment the earliest lease held elsewhere expires, so a dead instance's
 * queues are taken within the lease length itself, not a third later.
 *
 * A queue this instance takes (at start-up or from an instance that stopped renewing) is handed to
 * `onAcquired`, with the instances that held the taken leases before, before its work resumes: that
 * is where the dead holders' unfinished work is recovered (queue-takeover.ts). Its lease is renewed
 * once that is done, however long it took. A stopping instance
 * gives its leases up, so that another takes them at once.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database, QueueLeaseRow } from '../../store/database.js';
import { acquireQueueLeases, listQueueIds, listQueueLeases, releaseQueueLeases } from '../../store/queue-leases.js';
import type { Clock } from '../../lib/clock.js';

export const DEFAULT_LEASE_TTL_MS = 15_000;
/** How soon a queue not held here may be offered again (see `offer`). */
const OFFER_INTERVAL_MS = 1_000;

export interface QueueLeasesDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** Lease length; renewed every third of it. */
  ttlMs?: number;
  /** This instance's id in lease rows and effect claims (default: a random UUID per start). */
  instanceId?: string;
  logger?: Logger;
  /**
   * Queues newly taken by this instance, and the other instances whose (expired) leases of them were
   * taken; the queues count as held only once this resolves.
   */
  onAcquired?: (queueIds: string[], formerHolders: string[]) => Promise<void>;
}

export class QueueLeases {
  readonly instanceId: string;
  readonly ttlMs: number;
  /** Queue id → when the lease this instance last wrote for it expires. */
  private held = new Map<string, number>();
  private readonly offered = new Map<string, number>();
  private round: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The extra round when the earliest lease held elsewhere expires. */
  private expiryTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly deps: QueueLeasesDeps) {
    this.instanceId = deps.instanceId ?? randomUUID();
    this.ttlMs = deps.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 1)
      throw new Error(`lease length must be a positive number of milliseconds, got ${this.ttlMs}`);
  }

  /** True while this instance holds the queue's lease (by the lease it last wrote). */
  holds(queueId: string): boolean {
    const until = this.held.get(queueId);
    return until !== undefined && this.deps.clock.now() < until;
  }

  /** The queues this instance holds now. */
  heldQueues(): string[] {
    const now = this.deps.clock.now();
    return [...this.held].filter(([, until]) => now < until).map(([id]) => id);
  }

  /** Renews the leases held and takes free or expired ones, at once and then every third of the lease length. */
  start(): void {
    this.stopped = false;
    if (this.timer) return;
    void this.refresh().catch(() => undefined);
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), Math.max(1, Math.floor(this.ttlMs / 3)));
  }

  /** Stops renewing and gives every lease of this instance up. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.timer = null;
    this.expiryTimer = null;
    await this.round?.catch(() => undefined);
    this.held.clear();
    // Unreachable store: the leases simply expire, and another instance takes the queues then.
    await releaseQueueLeases(this.deps.db, this.instanceId).catch((err: unknown) =>
      this.deps.logger?.warn({ err }, 'queue leases not given up; they expire on their own'),
    );
  }

  /** One round over every queue: renew, take what is free. Rounds do not overlap (a caller joins the one running). */
  refresh(): Promise<void> {
    if (!this.round)
      this.round = this.take(null).finally(() => {
        this.round = null;
      });
    return this.round;
  }

  /**
   * Tries to take queues this instance does not hold but has work for (effects just written for a new
   * queue, say), without waiting for the next round; each queue at most once a second.
   */
  async offer(queueIds: readonly string[]): Promise<void> {
    const now = this.deps.clock.now();
    const ids = queueIds.filter((id) => !this.holds(id) && !(now < (this.offered.get(id) ?? 0)));
    if (ids.length === 0 || this.stopped) return;
    for (const id of ids) this.offered.set(id, now + OFFER_INTERVAL_MS);
    await this.round?.catch(() => undefined);
    await this.take(ids);
  }

  /** Schedules a round for when the earliest lease held elsewhere expires, if before the next regular one. */
  private async watchForeignLeases(now: number): Promise<void> {
    const foreign = (await listQueueLeases(this.deps.db)).filter((l) => l.holder !== this.instanceId);
    if (foreign.length === 0 || this.stopped) return;
    const at = Math.min(...foreign.map((l) => l.expires_at));
    const delay = Math.max(0, at - now) + 10;
    if (delay >= this.ttlMs / 3) return;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(() => {
      this.expiryTimer = null;
      void this.refresh().catch(() => undefined);
    }, delay);
  }

  private async take(only: readonly string[] | null): Promise<void> {
    if (this.stopped) return;
    const { db, clock, logger } = this.deps;
    const now = clock.now();
    const until = now + this.ttlMs;
    const ids = only ?? (await listQueueIds(db));
    let holding: string[];
    let before: QueueLeaseRow[];
    try {
      before = await listQueueLeases(db);
      holding = await acquireQueueLeases(db, ids, this.instanceId, now, until);
    } catch (err) {
      logger?.warn({ err }, 'queue leases could not be renewed');
      throw err;
    }
    const fresh = holding.filter((id) => !this.holds(id));
    if (only === null) {
      const lost = [...this.held.keys()].filter((id) => !holding.includes(id) && this.holds(id));
      if (lost.length > 0)
        logger?.warn({ queues: lost, instance: this.instanceId }, 'queue leases lost to another instance');
      for (const id of this.held.keys()) if (!holding.includes(id)) this.held.delete(id);
    }
    for (const id of holding) if (!fresh.includes(id)) this.held.set(id, until);
    if (only === null && this.timer) await this.watchForeignLeases(now);
    if (fresh.length === 0) return;
    const formerHolders = [
      ...new Set(before.filter((l) => fresh.includes(l.queue_id) && l.holder !== this.instanceId).map((l) => l.holder)),
    ];
    logger?.info({ queues: fresh, instance: this.instanceId, from: formerHolders }, 'queue leases taken');
    try {
      await this.deps.onAcquired?.(fresh, formerHolders);
      // The recovery may have outlasted the lease written before it (a hundred repositories on a busy
      // machine): renewed now, or the queues would count as not held, be found fresh by the next
      // round and recovered again, round after round, never driven.
      const renewedUntil = clock.now() + this.ttlMs;
      for (const id of await acquireQueueLeases(db, fresh, this.instanceId, clock.now(), renewedUntil))
        this.held.set(id, renewedUntil);
    } catch (err) {
      // Held in the store but not here: the next round finds them fresh again and retries the recovery.
      logger?.error({ err, queues: fresh }, 'recovering taken queues failed; retrying at the next renewal');
    }
  }
}
