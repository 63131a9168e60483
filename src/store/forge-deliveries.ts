/**
 * Forges' webhook deliveries (by their delivery id: X-GitHub-Delivery, X-Gitea-Delivery,
 * X-Forgejo-Delivery): each verified delivery is stored with its payload and the forge that sent it
 * when it arrives, and processed from here by that forge's worker (app/observing/forge-webhooks.ts), once:
 * a pending row is claimed by moving its next attempt past a lease, then marked done (its payload
 * dropped) or scheduled again after a failure, until it is given up (failed).
 */
import type { Kysely } from 'kysely';
import type { Database, RepoForge } from './database.js';

export interface StoredDelivery {
  id: string;
  event: string;
  /** The payload as JSON. */
  payload: string;
  attempts: number;
}

/** Stores a delivery to be processed at `at`; false when it was stored before (a redelivery or a duplicate). */
export async function storeDelivery(
  db: Kysely<Database>,
  forge: RepoForge,
  delivery: { id: string; event: string; payload: string },
  at: number,
): Promise<boolean> {
  const res = await db
    .insertInto('forge_deliveries')
    .values({ ...delivery, forge, received_at: at, status: 'pending', attempts: 0, next_attempt_at: at })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Ids of the forge's pending deliveries due at `now`, in the order they were received. */
export async function selectDueDeliveryIds(
  db: Kysely<Database>,
  forge: RepoForge,
  now: number,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('forge_deliveries')
    .select('id')
    .where('forge', '=', forge)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** When the forge's next pending delivery is due; null when none is pending. */
export async function nextDeliveryDueAt(db: Kysely<Database>, forge: RepoForge): Promise<number | null> {
  const row = await db
    .selectFrom('forge_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where('forge', '=', forge)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

/**
 * Claims a due delivery until `until` (its next attempt moves there, so a crashed processor's claim
 * runs out); null when another processor claimed it first.
 */
export async function claimDelivery(
  db: Kysely<Database>,
  id: string,
  now: number,
  until: number,
): Promise<StoredDelivery | null> {
  const res = await db
    .updateTable('forge_deliveries')
    .set({ next_attempt_at: until })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return null;
  const row = await db
    .selectFrom('forge_deliveries')
    .select(['id', 'event', 'payload', 'attempts'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { id: row.id, event: row.event, payload: row.payload ?? '{}', attempts: row.attempts };
}

/** The delivery was processed: what it did is kept, its payload is not. */
export async function completeDelivery(
  db: Kysely<Database>,
  id: string,
  result: string,
  attempts: number,
): Promise<void> {
  await db
    .updateTable('forge_deliveries')
    .set({ status: 'done', result, attempts, payload: null, next_attempt_at: null, last_error: null })
    .where('id', '=', id)
    .execute();
}

/** Processing failed: tried again at `retryAt`, or given up (null). */
export async function failDeliveryAttempt(
  db: Kysely<Database>,
  id: string,
  attempts: number,
  error: string,
  retryAt: number | null,
): Promise<void> {
  await db
    .updateTable('forge_deliveries')
    .set(
      retryAt === null
        ? { status: 'failed', attempts, last_error: error, next_attempt_at: null }
        : { attempts, last_error: error, next_attempt_at: retryAt },
    )
    .where('id', '=', id)
    .execute();
}
