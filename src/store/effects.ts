/**
 * The effects outbox. Rows are written in the same transaction as the state change that produced them;
 * the effect runner claims due rows by pushing their `run_at` forward by a lease and recording its
 * instance in `claimed_by` (a crashed runner's work comes back when the lease expires, or at once when
 * another instance takes the queue over: releaseForeignClaims) and marks them done or reschedules them.
 * One SQL operation per function.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Effect } from '../engine/types.js';
import type { Database, EffectRow } from './database.js';
import { dialectOf } from './dialect.js';
import { prepareRows } from './prepared.js';

type EffectWrite = Pick<EffectRow, 'queue_id' | 'key' | 'kind' | 'payload' | 'run_at' | 'created_at'>;

const effectsInsert = prepareRows((db, rows: EffectWrite[]) => db.insertInto('effects')
  .values(rows.map((r) => ({
    queue_id: r.queue_id, key: r.key, kind: r.kind, payload: r.payload,
    status: 'pending' as const, attempts: 0, run_at: r.run_at, last_error: null, created_at: r.created_at, updated_at: r.created_at,
  })))
  .onConflict((oc) => oc.columns(['queue_id', 'key']).doNothing()));

/** Adds effects; an effect whose key the queue already has is ignored (idempotent by key). */
export async function insertEffects(
  trx: Transaction<Database>, queueId: string, effects: { effect: Effect; runAt: number }[], at: number,
): Promise<void> {
  if (effects.length === 0) return;
  await effectsInsert(trx, effects.map(({ effect, runAt }) => ({
    queue_id: queueId, key: effect.key, kind: effect.kind, payload: JSON.stringify(effect), run_at: runAt, created_at: at,
  })));
}

/** The PostgreSQL channel on which a commit that wrote effects names their queue (effect-notifications.ts). */
export const EFFECTS_CHANNEL = 'greenline_effects';

/**
 * On PostgreSQL, tells every listening instance, when `trx` commits, that the queue has new effects
 * (NOTIFY is transactional: nothing is sent if the transaction rolls back). A no-op on SQLite.
 */
export async function notifyEffects(trx: Transaction<Database>, queueId: string): Promise<void> {
  if (dialectOf(trx) !== 'postgres') return;
  await sql`select pg_notify(${EFFECTS_CHANNEL}, ${queueId})`.execute(trx);
}

/** Queues with pending effects due at `now`, except those in `exclude`; with `only`, among those queues. */
export async function selectQueuesWithDueEffects(db: Kysely<Database>, now: number, exclude: string[], only?: readonly string[]): Promise<string[]> {
  if (only && only.length === 0) return [];
  const rows = await db.selectFrom('effects').select('queue_id').distinct()
    .where('status', '=', 'pending').where('run_at', '<=', now)
    .$if(exclude.length > 0, (q) => q.where('queue_id', 'not in', exclude))
    .$if(only !== undefined, (q) => q.where('queue_id', 'in', [...only!]))
    .execute();
  return rows.map((r) => r.queue_id);
}

/**
 * Ids of a queue's pending effects due at `now`, oldest first; on PostgreSQL skipping rows another
 * instance holds. With `holder`: none unless `holder` holds the queue's lease at `now`
 * (store/queue-leases.ts), so an instance whose lease has lapsed claims nothing more.
 */
export async function selectDueEffectIds(
  trx: Transaction<Database>, now: number, limit: number, queueId: string, holder?: string,
): Promise<number[]> {
  const rows = await trx.selectFrom('effects').select('id')
    .where('queue_id', '=', queueId).where('status', '=', 'pending').where('run_at', '<=', now)
    .$if(holder !== undefined, (q) => q.where(({ exists, selectFrom }) => exists(selectFrom('queue_leases').select('queue_leases.queue_id')
      .whereRef('queue_leases.queue_id', '=', 'effects.queue_id')
      .where('queue_leases.holder', '=', holder!).where('queue_leases.expires_at', '>', now))))
    .orderBy('run_at').orderBy('id').limit(limit)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Claims effects until `until` for `claimedBy` (an instance id) and counts the attempt; returns the
 * claimed rows, oldest first.
 */
export async function leaseEffects(trx: Transaction<Database>, ids: number[], until: number, claimedBy: string | null = null): Promise<EffectRow[]> {
  if (ids.length === 0) return [];
  const rows = await trx.updateTable('effects')
    .set((eb) => ({ run_at: until, attempts: eb('attempts', '+', 1), updated_at: until, claimed_by: claimedBy }))
    .where('id', 'in', ids)
    .returningAll()
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) })).sort((a, b) => a.id - b.id);
}

export async function completeEffect(db: Kysely<Database>, id: number, at: number): Promise<void> {
  await db.updateTable('effects').set({ status: 'done', updated_at: at, claimed_by: null }).where('id', '=', id).execute();
}

export async function rescheduleEffect(db: Kysely<Database>, id: number, runAt: number, error: string, at: number): Promise<void> {
  await db.updateTable('effects').set({ run_at: runAt, last_error: error, updated_at: at, claimed_by: null }).where('id', '=', id).execute();
}

export async function failEffect(db: Kysely<Database>, id: number, error: string, at: number): Promise<void> {
  await db.updateTable('effects').set({ status: 'failed', last_error: error, updated_at: at, claimed_by: null }).where('id', '=', id).execute();
}

/**
 * Makes a queue's pending effects claimed by any instance but `holder` due at `now`: what the new
 * holder of a queue's lease does, since the old holder is gone and its claims would otherwise wait
 * for their own (long) lease. Returns how many came back.
 */
export async function releaseForeignClaims(db: Kysely<Database>, queueId: string, holder: string, now: number): Promise<number> {
  const rows = await db.updateTable('effects').set({ run_at: now, claimed_by: null, updated_at: now })
    .where('queue_id', '=', queueId).where('status', '=', 'pending')
    .where('claimed_by', 'is not', null).where('claimed_by', '<>', holder)
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * Makes the queue's effect `key` pending and due at `now` again when it is finished (a no-op while it
 * is still pending): for work whose result was lost with the instance that did it.
 */
export async function reissueEffect(db: Kysely<Database>, queueId: string, key: string, now: number): Promise<boolean> {
  const rows = await db.updateTable('effects')
    .set({ status: 'pending', run_at: now, attempts: 0, claimed_by: null, last_error: null, updated_at: now })
    .where('queue_id', '=', queueId).where('key', '=', key).where('status', '<>', 'pending')
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** When the next pending effect (of the queues in `only`, if given) is due, or null when none is pending. */
export async function nextEffectRunAt(db: Kysely<Database>, only?: readonly string[]): Promise<number | null> {
  if (only && only.length === 0) return null;
  const row = await db.selectFrom('effects').select((eb) => eb.fn.min<number>('run_at').as('at'))
    .where('status', '=', 'pending')
    .$if(only !== undefined, (q) => q.where('queue_id', 'in', [...only!]))
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}

export async function listEffects(db: Kysely<Database>, queueId: string): Promise<EffectRow[]> {
  const rows = await db.selectFrom('effects').selectAll().where('queue_id', '=', queueId).orderBy('id').execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/**
 * True when the queue has an effect of this kind that is pending or finished at or after `since`:
 * work that may have changed the forge after a read made at `since`.
 */
export async function hasEffectActivitySince(
  db: Kysely<Database>, queueId: string, kind: Effect['kind'], since: number,
): Promise<boolean> {
  const row = await db.selectFrom('effects').select('id')
    .where('queue_id', '=', queueId).where('kind', '=', kind)
    .where((eb) => eb.or([eb('status', '=', 'pending'), eb('updated_at', '>=', since)]))
    .executeTakeFirst();
  return row !== undefined;
}
