/**
 * The messages of a delivery outbox (`tables.messages`: webhook_messages or notify_messages). One SQL
 * operation per function; each is given the outbox's tables by name.
 */
import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import type { Database, DeliveryMessageRow, DeliveryMessagesTable } from '../store/database.js';
import { dialectOf } from '../store/dialect.js';
import { ENDPOINT_DOWN_STATUSES } from './retry-schedule.js';
import { newMessageId } from './signing.js';
import type { OutboxTables } from './tables.js';

/** What a new message says: to which subscription, of which event, in which order, and its body. */
export type NewMessage = Pick<
  Insertable<DeliveryMessagesTable>,
  'subscription_id' | 'queue_id' | 'event_id' | 'event_type' | 'order_key' | 'body'
>;

/**
 * Queues messages, each with a new message id, not tried yet and due at `at`; one already there for
 * the same (subscription, event) is left as it is.
 */
export async function queueMessages(
  db: Kysely<Database>,
  tables: OutboxTables,
  messages: NewMessage[],
  at: number,
): Promise<void> {
  if (messages.length === 0) return;
  await db
    .insertInto(tables.messages)
    .values(
      messages.map((m) => ({
        ...m,
        message_id: newMessageId(),
        status: 'pending' as const,
        attempts: 0,
        manual: 0,
        next_attempt_at: at,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(['subscription_id', 'event_id']).doNothing())
    .execute();
}

/** Pending messages with no earlier pending message of the same order key (and subscription). */
function chainHeads(db: Kysely<Database>, tables: OutboxTables) {
  return db
    .selectFrom(`${tables.messages} as m`)
    .where('m.status', '=', 'pending')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom(`${tables.messages} as p`)
            .select(sql.lit(1).as('one'))
            .whereRef('p.subscription_id', '=', 'm.subscription_id')
            .whereRef('p.order_key', '=', 'm.order_key')
            .where('p.status', '=', 'pending')
            .whereRef('p.id', '<', 'm.id'),
        ),
      ),
    );
}

/**
 * A message (its columns under `prefix`) waiting for its endpoint: tried, no attempt in flight, and its
 * last failure the endpoint's (no answer, or a gateway's 502/503/504: retry-schedule.ts).
 */
function waitsForEndpoint(prefix: '' | 'm.') {
  const column = (name: string) => sql.ref(`${prefix}${name}`);
  return sql<boolean>`(${column('attempts')} > 0 and ${column('claimed_by')} is null and (${column('last_status_code')} is null or ${column('last_status_code')} in (${sql.join([...ENDPOINT_DOWN_STATUSES])})))`;
}

/**
 * Pending messages due at `now` whose order key has no earlier pending message (of the same
 * subscription): at most one per key, oldest first. Due: its next attempt has come; or, early, it
 * waits for its endpoint (its last failure was the endpoint's: retry-schedule.ts) and a message was
 * queued behind it since its last attempt: the new event is a reason to see whether the endpoint is
 * back (as it would be tried at once if it had no message ahead of it). On PostgreSQL rows another
 * worker is claiming are skipped.
 */
export async function selectDueMessageIds(
  db: Kysely<Database>,
  tables: OutboxTables,
  now: number,
  limit: number,
): Promise<number[]> {
  const rows = await chainHeads(db, tables)
    .select('m.id')
    .where((eb) =>
      eb.or([
        eb('m.next_attempt_at', '<=', now),
        eb.and([
          waitsForEndpoint('m.'),
          eb.exists(
            eb
              .selectFrom(`${tables.messages} as n`)
              .select(sql.lit(1).as('one'))
              .whereRef('n.subscription_id', '=', 'm.subscription_id')
              .whereRef('n.order_key', '=', 'm.order_key')
              .whereRef('n.id', '>', 'm.id')
              .whereRef('n.created_at', '>', 'm.updated_at'),
          ),
        ]),
      ]),
    )
    .orderBy('m.id')
    .limit(limit)
    .$if(dialectOf(db) === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
  return rows.map((r) => Number(r.id));
}

/** When the next message that may be sent is due (messages waiting behind another do not count); null when none. */
export async function nextMessageDueAt(db: Kysely<Database>, tables: OutboxTables): Promise<number | null> {
  const row = await chainHeads(db, tables)
    .select((eb) => eb.fn.min('m.next_attempt_at').as('next'))
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

/** Which of these messages are pending behind an earlier pending message of their order key. */
export async function heldMessageIds(
  db: Kysely<Database>,
  tables: OutboxTables,
  messages: readonly Pick<DeliveryMessageRow, 'message_id' | 'status'>[],
): Promise<Set<string>> {
  const pending = messages.filter((m) => m.status === 'pending').map((m) => m.message_id);
  if (pending.length === 0) return new Set();
  const heads = await chainHeads(db, tables).select('m.message_id').where('m.message_id', 'in', pending).execute();
  const free = new Set(heads.map((h) => h.message_id));
  return new Set(pending.filter((id) => !free.has(id)));
}

/**
 * Claims messages for `claimedBy` (an instance id) until `until` (their next attempt moves there) and
 * returns them as they were before (with the next attempt they were due for: an early attempt that
 * fails keeps it). A claimed message is never made due early (releaseMessagesWaitingForEndpoint).
 * Call it in the transaction that selected the ids.
 */
export async function leaseMessages(
  db: Kysely<Database>,
  tables: OutboxTables,
  ids: number[],
  now: number,
  until: number,
  claimedBy: string,
): Promise<DeliveryMessageRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom(tables.messages)
    .selectAll()
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .orderBy('id')
    .execute();
  await db
    .updateTable(tables.messages)
    .set({ next_attempt_at: until, updated_at: now, claimed_by: claimedBy })
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .execute();
  return rows;
}

/**
 * Makes the pending messages claimed by any of `instances` due at `now`: their attempts died with
 * those instances (at least once: one may have reached its receiver; the webhook-id stays the same).
 * Returns how many came back.
 */
export async function releaseDeliveryClaims(
  db: Kysely<Database>,
  tables: OutboxTables,
  instances: readonly string[],
  now: number,
): Promise<number> {
  if (instances.length === 0) return 0;
  const r = await db
    .updateTable(tables.messages)
    .set({ next_attempt_at: now, claimed_by: null, updated_at: now })
    .where('status', '=', 'pending')
    .where('claimed_by', 'in', [...instances])
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Its endpoint answered 2xx at `now`: the subscription's messages waiting for a retry after an
 * endpoint failure (no answer, or 502/503/504: retry-schedule.ts) are due now; those held behind them
 * follow in order. Messages whose failure was their own keep their schedule, and a message with an
 * attempt in flight (claimed) is left to it. Returns how many are due now.
 */
export async function releaseMessagesWaitingForEndpoint(
  db: Kysely<Database>,
  tables: OutboxTables,
  subscriptionId: string,
  now: number,
): Promise<number> {
  const r = await db
    .updateTable(tables.messages)
    .set({ next_attempt_at: now, updated_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .where(waitsForEndpoint(''))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Whether a message of the subscription was delivered after `at` (an attempt that failed began then):
 * the endpoint answered 2xx while that attempt was under way.
 */
export async function deliveredAfter(
  db: Kysely<Database>,
  tables: OutboxTables,
  subscriptionId: string,
  at: number,
): Promise<boolean> {
  const row = await db
    .selectFrom(tables.messages)
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'delivered')
    .where('delivered_at', '>', at)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateMessage(
  db: Kysely<Database>,
  tables: OutboxTables,
  messageId: string,
  patch: Updateable<DeliveryMessagesTable>,
): Promise<boolean> {
  const r = await db.updateTable(tables.messages).set(patch).where('message_id', '=', messageId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function findMessage(
  db: Kysely<Database>,
  tables: OutboxTables,
  messageId: string,
): Promise<DeliveryMessageRow | undefined> {
  return db.selectFrom(tables.messages).selectAll().where('message_id', '=', messageId).executeTakeFirst();
}

/** A subscription's messages, newest first. */
export async function listMessages(
  db: Kysely<Database>,
  tables: OutboxTables,
  subscriptionId: string,
  limit: number,
): Promise<DeliveryMessageRow[]> {
  return db
    .selectFrom(tables.messages)
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The latest message of each of these subscriptions. */
export async function latestMessages(
  db: Kysely<Database>,
  tables: OutboxTables,
  subscriptionIds: string[],
): Promise<Map<string, DeliveryMessageRow>> {
  if (subscriptionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom(tables.messages)
    .selectAll()
    .where('id', 'in', (eb) =>
      eb
        .selectFrom(tables.messages)
        .select((e) => e.fn.max('id').as('id'))
        .where('subscription_id', 'in', subscriptionIds)
        .groupBy('subscription_id'),
    )
    .execute();
  return new Map(rows.map((r) => [r.subscription_id, r]));
}

/** Gives up the pending messages of a subscription (it was disabled). */
export async function failPendingMessages(
  db: Kysely<Database>,
  tables: OutboxTables,
  subscriptionId: string,
  error: string,
  now: number,
): Promise<void> {
  await db
    .updateTable(tables.messages)
    .set({ status: 'failed', last_error: error, updated_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .execute();
}
