/**
 * Queue leases: which instance drives a queue (executes its effects, polls its forge, fires its timers)
 * and until when. Any instance may take a lease that is missing or expired; the holder renews its
 * leases well before they expire. Taking and renewing are one atomic upsert whose update only happens
 * when the row is the caller's own or expired, so two instances never both hold a queue (by the
 * database's clock of record: the callers' `now`, which must agree across instances to well within
 * the lease length). One SQL operation per function.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database, QueueLeaseRow } from './database.js';

/**
 * Takes or renews the leases of `queueIds` for `holder` until `until`, where the row is missing,
 * expired at `now`, or already `holder`'s. Returns the queue ids `holder` holds afterwards (of those
 * asked for). A lease that changes hands gets `acquired_at = now`.
 */
export async function acquireQueueLeases(
  db: Kysely<Database>,
  queueIds: readonly string[],
  holder: string,
  now: number,
  until: number,
): Promise<string[]> {
  if (queueIds.length === 0) return [];
  const rows = await db
    .insertInto('queue_leases')
    .values(queueIds.map((id) => ({ queue_id: id, holder, expires_at: until, acquired_at: now })))
    .onConflict((oc) =>
      oc
        .column('queue_id')
        .doUpdateSet((eb) => ({
          holder: eb.ref('excluded.holder'),
          expires_at: eb.ref('excluded.expires_at'),
          acquired_at: eb
            .case()
            .when('queue_leases.holder', '=', eb.ref('excluded.holder'))
            .then(eb.ref('queue_leases.acquired_at'))
            .else(eb.ref('excluded.acquired_at'))
            .end(),
        }))
        .where((eb) =>
          eb.or([eb('queue_leases.holder', '=', eb.ref('excluded.holder')), eb('queue_leases.expires_at', '<=', now)]),
        ),
    )
    .returning('queue_id')
    .execute();
  return rows.map((r) => r.queue_id);
}

/** Gives up `holder`'s leases (all of them, or those of `queueIds`): another instance may take them at once. */
export async function releaseQueueLeases(
  db: Kysely<Database>,
  holder: string,
  queueIds?: readonly string[],
): Promise<void> {
  if (queueIds && queueIds.length === 0) return;
  await db
    .deleteFrom('queue_leases')
    .where('holder', '=', holder)
    .$if(queueIds !== undefined, (q) => q.where('queue_id', 'in', [...queueIds!]))
    .execute();
}

/** Every lease row (live or expired), by queue id. */
export async function listQueueLeases(db: Kysely<Database>): Promise<QueueLeaseRow[]> {
  return db.selectFrom('queue_leases').selectAll().orderBy('queue_id').execute();
}

/** True when `holder` holds the queue's lease at `now`. Usable inside a transaction. */
export async function holdsQueueLease(
  db: Kysely<Database> | Transaction<Database>,
  queueId: string,
  holder: string,
  now: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('queue_leases')
    .select('queue_id')
    .where('queue_id', '=', queueId)
    .where('holder', '=', holder)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

/** Ids of every queue: the candidates for leases. */
export async function listQueueIds(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('queues').select('id').orderBy('id').execute()).map((r) => r.id);
}
