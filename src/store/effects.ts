/**
 * The effects outbox. Rows are written in the same transaction as the state change that produced them;
 * the effect runner claims due rows by pushing their `run_at` forward by a lease (so a crashed runner's
 * work comes back when the lease expires) and marks them done or reschedules them.
 * One SQL operation per function.
 */
import type { Kysely, Transaction } from 'kysely';
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

/** Queues with pending effects due at `now`, except those in `exclude`. */
export async function selectQueuesWithDueEffects(db: Kysely<Database>, now: number, exclude: string[]): Promise<string[]> {
  const rows = await db.selectFrom('effects').select('queue_id').distinct()
    .where('status', '=', 'pending').where('run_at', '<=', now)
    .$if(exclude.length > 0, (q) => q.where('queue_id', 'not in', exclude))
    .execute();
  return rows.map((r) => r.queue_id);
}

/**
 * Ids of a queue's pending effects due at `now`, oldest first; on PostgreSQL skipping rows another
 * instance holds.
 */
export async function selectDueEffectIds(trx: Transaction<Database>, now: number, limit: number, queueId: string): Promise<number[]> {
  const rows = await trx.selectFrom('effects').select('id')
    .where('queue_id', '=', queueId).where('status', '=', 'pending').where('run_at', '<=', now)
    .orderBy('run_at').orderBy('id').limit(limit)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
  return rows.map((r) => Number(r.id));
}

/** Claims effects until `until` and counts the attempt; returns the claimed rows, oldest first. */
export async function leaseEffects(trx: Transaction<Database>, ids: number[], until: number): Promise<EffectRow[]> {
  if (ids.length === 0) return [];
  const rows = await trx.updateTable('effects')
    .set((eb) => ({ run_at: until, attempts: eb('attempts', '+', 1), updated_at: until }))
    .where('id', 'in', ids)
    .returningAll()
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) })).sort((a, b) => a.id - b.id);
}

export async function completeEffect(db: Kysely<Database>, id: number, at: number): Promise<void> {
  await db.updateTable('effects').set({ status: 'done', updated_at: at }).where('id', '=', id).execute();
}

export async function rescheduleEffect(db: Kysely<Database>, id: number, runAt: number, error: string, at: number): Promise<void> {
  await db.updateTable('effects').set({ run_at: runAt, last_error: error, updated_at: at }).where('id', '=', id).execute();
}

export async function failEffect(db: Kysely<Database>, id: number, error: string, at: number): Promise<void> {
  await db.updateTable('effects').set({ status: 'failed', last_error: error, updated_at: at }).where('id', '=', id).execute();
}

/** When the next pending effect is due, or null when none is pending. */
export async function nextEffectRunAt(db: Kysely<Database>): Promise<number | null> {
  const row = await db.selectFrom('effects').select((eb) => eb.fn.min<number>('run_at').as('at'))
    .where('status', '=', 'pending').executeTakeFirst();
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
