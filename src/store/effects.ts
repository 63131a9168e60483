/**
 * The effects outbox. Rows are written in the same transaction as the state change that produced them;
 * the effect runner claims due rows by pushing their `run_at` forward by a lease and recording its
 * instance in `claimed_by` (a crashed runner's work comes back when the lease expires, or at once when
 * another instance takes the queue over: releaseForeignClaims) and marks them done or reschedules them.
 *
 * Order. Ids follow emission: a queue's decisions take turns on its row lock and write their effects in
 * the order the engine emitted them. Each effect belongs to a chain of its queue (`order_key`):
 * - `run:<id>`: everything done for one test run (build its branch, start and cancel its CI, merge it,
 *   delete its branch), so clean-up never overtakes the work it cleans up;
 * - `events`: the queue's events, so queue_events, webhooks and the forge's PR presence see them in order;
 * - none: wake-ups (a tick at any time is harmless; they wait for their time, not for each other).
 * The rule: **an effect is claimed only when no earlier effect (lower id) of its queue and chain is
 * pending**, whether that one is due, waiting for a retry, or claimed by an instance alive or dead. So
 * a chain runs one effect at a time in emission order, whoever executes it and however often it is
 * retried or taken over; `run_at` says only when an effect may run, never in which order. Chains
 * are independent: a run whose clean-up keeps failing holds up neither the other runs nor the events,
 * and each queue has a worker of its own.
 * One SQL operation per function.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Effect } from '../engine/types.js';
import type { Database, EffectRow } from './database.js';
import { dialectOf } from './dialect.js';
import { prepareRows } from './prepared.js';

type EffectWrite = Pick<EffectRow, 'queue_id' | 'key' | 'kind' | 'payload' | 'run_at' | 'created_at' | 'order_key'>;

const effectsInsert = prepareRows((db, rows: EffectWrite[]) =>
  db
    .insertInto('effects')
    .values(
      rows.map((r) => ({
        queue_id: r.queue_id,
        key: r.key,
        kind: r.kind,
        payload: r.payload,
        order_key: r.order_key,
        status: 'pending' as const,
        attempts: 0,
        run_at: r.run_at,
        last_error: null,
        created_at: r.created_at,
        updated_at: r.created_at,
      })),
    )
    .onConflict((oc) => oc.columns(['queue_id', 'key']).doNothing()),
);

/** The chain an effect keeps its place in (see the header). */
export function orderKeyOf(effect: Effect): string | null {
  switch (effect.kind) {
    case 'emitEvent':
      return 'events';
    case 'scheduleWakeup':
      return null;
    default:
      return `run:${effect.runId}`;
  }
}

/**
 * Adds effects, in the order given (their ids follow it); an effect whose key the queue already has
 * is ignored (idempotent by key).
 */
export async function insertEffects(
  trx: Transaction<Database>,
  queueId: string,
  effects: { effect: Effect; runAt: number }[],
  at: number,
): Promise<void> {
  if (effects.length === 0) return;
  await effectsInsert(
    trx,
    effects.map(({ effect, runAt }) => ({
      queue_id: queueId,
      key: effect.key,
      kind: effect.kind,
      payload: JSON.stringify(effect),
      order_key: orderKeyOf(effect),
      run_at: runAt,
      created_at: at,
    })),
  );
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

/** Pending effects with no earlier pending effect of their queue and chain: the ones that may be claimed once due. */
function chainHeads(db: Kysely<Database>) {
  return db
    .selectFrom('effects as e')
    .where('e.status', '=', 'pending')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('effects as p')
            .select(sql.lit(1).as('one'))
            .whereRef('p.queue_id', '=', 'e.queue_id')
            .whereRef('p.order_key', '=', 'e.order_key')
            .where('p.status', '=', 'pending')
            .whereRef('p.id', '<', 'e.id'),
        ),
      ),
    );
}

/** Queues with effects that may be claimed at `now`, except those in `exclude`; with `only`, among those queues. */
export async function selectQueuesWithDueEffects(
  db: Kysely<Database>,
  now: number,
  exclude: string[],
  only?: readonly string[],
): Promise<string[]> {
  if (only && only.length === 0) return [];
  const rows = await chainHeads(db)
    .select('e.queue_id')
    .distinct()
    .where('e.run_at', '<=', now)
    .$if(exclude.length > 0, (q) => q.where('e.queue_id', 'not in', exclude))
    .$if(only !== undefined, (q) => q.where('e.queue_id', 'in', [...only!]))
    .execute();
  return rows.map((r) => r.queue_id);
}

/**
 * Ids of a queue's effects that may be claimed at `now` (due heads of their chains: at most one per
 * chain), in emission order; on PostgreSQL skipping rows another instance holds. With `holder`: none
 * unless `holder` holds the queue's lease at `now` (store/queue-leases.ts), so an instance whose lease
 * has lapsed claims nothing more.
 */
export async function selectDueEffectIds(
  trx: Transaction<Database>,
  now: number,
  limit: number,
  queueId: string,
  holder?: string,
): Promise<number[]> {
  const rows = await chainHeads(trx)
    .select('e.id')
    .where('e.queue_id', '=', queueId)
    .where('e.run_at', '<=', now)
    .$if(holder !== undefined, (q) =>
      q.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('queue_leases')
            .select('queue_leases.queue_id')
            .whereRef('queue_leases.queue_id', '=', 'e.queue_id')
            .where('queue_leases.holder', '=', holder!)
            .where('queue_leases.expires_at', '>', now),
        ),
      ),
    )
    .orderBy('e.id')
    .limit(limit)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Claims effects until `until` for `claimedBy` (an instance id) and counts the attempt; returns the
 * claimed rows, oldest first.
 */
export async function leaseEffects(
  trx: Transaction<Database>,
  ids: number[],
  until: number,
  claimedBy: string | null = null,
): Promise<EffectRow[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('effects')
    .set((eb) => ({ run_at: until, attempts: eb('attempts', '+', 1), updated_at: until, claimed_by: claimedBy }))
    .where('id', 'in', ids)
    .returningAll()
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) })).sort((a, b) => a.id - b.id);
}

export async function completeEffect(db: Kysely<Database>, id: number, at: number): Promise<void> {
  await db
    .updateTable('effects')
    .set({ status: 'done', updated_at: at, claimed_by: null })
    .where('id', '=', id)
    .execute();
}

/**
 * Runs the effect again at `runAt`. `attempt: 'given back'`: the attempt that just ended does not
 * count (a wait for the forge's rate limit is no failed attempt).
 */
export async function rescheduleEffect(
  db: Kysely<Database>,
  id: number,
  runAt: number,
  error: string,
  at: number,
  attempt: 'counted' | 'given back' = 'counted',
): Promise<void> {
  await db
    .updateTable('effects')
    .set((eb) => ({
      run_at: runAt,
      last_error: error,
      updated_at: at,
      claimed_by: null,
      ...(attempt === 'given back' ? { attempts: eb('attempts', '-', 1) } : {}),
    }))
    .where('id', '=', id)
    .execute();
}

export async function failEffect(db: Kysely<Database>, id: number, error: string, at: number): Promise<void> {
  await db
    .updateTable('effects')
    .set({ status: 'failed', last_error: error, updated_at: at, claimed_by: null })
    .where('id', '=', id)
    .execute();
}

/**
 * Makes a queue's pending effects claimed by any instance but `holder` due at `now`: what the new
 * holder of a queue's lease does, since the old holder is gone and its claims would otherwise wait
 * for their own (long) lease. They keep their ids, so their place in their chains. Returns how many
 * came back.
 */
export async function releaseForeignClaims(
  db: Kysely<Database>,
  queueId: string,
  holder: string,
  now: number,
): Promise<number> {
  const rows = await db
    .updateTable('effects')
    .set({ run_at: now, claimed_by: null, updated_at: now })
    .where('queue_id', '=', queueId)
    .where('status', '=', 'pending')
    .where('claimed_by', 'is not', null)
    .where('claimed_by', '<>', holder)
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * Makes the queue's effect `key` pending and due at `now` again when it is finished (a no-op while it
 * is still pending): for work whose result was lost with the instance that did it.
 */
export async function reissueEffect(db: Kysely<Database>, queueId: string, key: string, now: number): Promise<boolean> {
  const rows = await db
    .updateTable('effects')
    .set({ status: 'pending', run_at: now, attempts: 0, claimed_by: null, last_error: null, updated_at: now })
    .where('queue_id', '=', queueId)
    .where('key', '=', key)
    .where('status', '<>', 'pending')
    .returning('id')
    .execute();
  return rows.length > 0;
}

/**
 * When the next effect that may be claimed (of the queues in `only`, if given) is due, or null when
 * none is pending; effects waiting behind an earlier one of their chain do not count.
 */
export async function nextEffectRunAt(db: Kysely<Database>, only?: readonly string[]): Promise<number | null> {
  if (only && only.length === 0) return null;
  const row = await chainHeads(db)
    .select((eb) => eb.fn.min<number>('e.run_at').as('at'))
    .$if(only !== undefined, (q) => q.where('e.queue_id', 'in', [...only!]))
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
  db: Kysely<Database>,
  queueId: string,
  kind: Effect['kind'],
  since: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('effects')
    .select('id')
    .where('queue_id', '=', queueId)
    .where('kind', '=', kind)
    .where((eb) => eb.or([eb('status', '=', 'pending'), eb('updated_at', '>=', since)]))
    .executeTakeFirst();
  return row !== undefined;
}
