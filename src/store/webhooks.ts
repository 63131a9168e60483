/** Webhook subscriptions, messages (the delivery outbox) and attempts. One SQL operation per function. */
import { sql, type Kysely } from 'kysely';
import type {
  Database,
  WebhookAttemptRow,
  WebhookMessageRow,
  WebhookMessagesTable,
  WebhookSubscriptionRow,
  WebhookSubscriptionsTable,
} from './database.js';
import type { Insertable, Updateable } from 'kysely';
import { dialectOf } from './dialect.js';

// ------------------------------------------------------------------ subscriptions

export async function insertSubscription(db: Kysely<Database>, row: WebhookSubscriptionRow): Promise<void> {
  await db.insertInto('webhook_subscriptions').values(row).execute();
}

export async function findSubscription(db: Kysely<Database>, id: string): Promise<WebhookSubscriptionRow | undefined> {
  return db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Subscriptions of one org (or of every org), oldest first. */
export async function listSubscriptions(db: Kysely<Database>, orgId?: string): Promise<WebhookSubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .$if(orgId !== undefined, (q) => q.where('org_id', '=', orgId!))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function enabledSubscriptionsOfOrg(
  db: Kysely<Database>,
  orgId: string,
): Promise<WebhookSubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('enabled', '=', 1)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateSubscription(
  db: Kysely<Database>,
  id: string,
  patch: Updateable<WebhookSubscriptionsTable>,
): Promise<boolean> {
  const r = await db.updateTable('webhook_subscriptions').set(patch).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deleteSubscription(db: Kysely<Database>, id: string): Promise<boolean> {
  const r = await db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Starts the subscription's run of failures at `at` unless one is under way; returns its start. */
export async function markFailing(db: Kysely<Database>, id: string, at: number): Promise<number | null> {
  await db
    .updateTable('webhook_subscriptions')
    .set({ failing_since: at })
    .where('id', '=', id)
    .where('failing_since', 'is', null)
    .execute();
  const row = await db
    .selectFrom('webhook_subscriptions')
    .select('failing_since')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.failing_since ?? null;
}

// ------------------------------------------------------------------ messages

/** Inserts messages; one already there for the same (subscription, event) is left as it is. */
/** What a new message says; the rest of its row is that of a message not tried yet, due at `at`. */
export type NewMessage = Pick<
  Insertable<WebhookMessagesTable>,
  'subscription_id' | 'queue_id' | 'event_id' | 'event_type' | 'order_key' | 'body'
> & { message_id: string };

/** A message's row before its first attempt, due at `at`. */
export const pendingMessage = (m: NewMessage, at: number): Insertable<WebhookMessagesTable> => ({
  ...m,
  status: 'pending',
  attempts: 0,
  manual: 0,
  next_attempt_at: at,
  last_status_code: null,
  last_error: null,
  delivered_at: null,
  created_at: at,
  updated_at: at,
});

export async function insertMessages(db: Kysely<Database>, rows: Insertable<WebhookMessagesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('webhook_messages')
    .values(rows)
    .onConflict((oc) => oc.columns(['subscription_id', 'event_id']).doNothing())
    .execute();
}

/** Pending messages with no earlier pending message of the same order key (and subscription). */
function chainHeads(db: Kysely<Database>) {
  return db
    .selectFrom('webhook_messages as m')
    .where('m.status', '=', 'pending')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_messages as p')
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
 * Pending messages due at `now` whose order key has no earlier pending message (of the same
 * subscription): at most one per key, oldest first. On PostgreSQL rows another worker is claiming
 * are skipped.
 */
export async function selectDueMessageIds(db: Kysely<Database>, now: number, limit: number): Promise<number[]> {
  const rows = await chainHeads(db)
    .select('m.id')
    .where('m.next_attempt_at', '<=', now)
    .orderBy('m.id')
    .limit(limit)
    .$if(dialectOf(db) === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Claims messages for `claimedBy` (an instance id) until `until` (their next attempt moves there) and
 * returns them.
 */
export async function leaseMessages(
  db: Kysely<Database>,
  ids: number[],
  now: number,
  until: number,
  claimedBy: string | null = null,
): Promise<WebhookMessageRow[]> {
  if (ids.length === 0) return [];
  await db
    .updateTable('webhook_messages')
    .set({ next_attempt_at: until, updated_at: now, claimed_by: claimedBy })
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .execute();
  return db
    .selectFrom('webhook_messages')
    .selectAll()
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .orderBy('id')
    .execute();
}

/**
 * Makes the pending messages claimed by any of `instances` due at `now`: their attempts died with
 * those instances (at least once: one may have reached its receiver; the webhook-id stays the same).
 * Returns how many came back.
 */
export async function releaseDeliveryClaims(
  db: Kysely<Database>,
  instances: readonly string[],
  now: number,
): Promise<number> {
  if (instances.length === 0) return 0;
  const r = await db
    .updateTable('webhook_messages')
    .set({ next_attempt_at: now, claimed_by: null, updated_at: now })
    .where('status', '=', 'pending')
    .where('claimed_by', 'in', [...instances])
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function updateMessage(
  db: Kysely<Database>,
  messageId: string,
  patch: Updateable<WebhookMessagesTable>,
): Promise<boolean> {
  const r = await db.updateTable('webhook_messages').set(patch).where('message_id', '=', messageId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function findMessage(db: Kysely<Database>, messageId: string): Promise<WebhookMessageRow | undefined> {
  return db.selectFrom('webhook_messages').selectAll().where('message_id', '=', messageId).executeTakeFirst();
}

/** A subscription's messages, newest first. */
export async function listMessages(
  db: Kysely<Database>,
  subscriptionId: string,
  limit: number,
): Promise<WebhookMessageRow[]> {
  return db
    .selectFrom('webhook_messages')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Gives up the pending messages of a subscription (it was disabled). */
export async function failPendingMessages(
  db: Kysely<Database>,
  subscriptionId: string,
  error: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('webhook_messages')
    .set({ status: 'failed', last_error: error, updated_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .execute();
}

/** When the next message that may be sent is due (messages waiting behind another do not count); null when none. */
export async function nextMessageDueAt(db: Kysely<Database>): Promise<number | null> {
  const row = await chainHeads(db)
    .select((eb) => eb.fn.min('m.next_attempt_at').as('next'))
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

// ------------------------------------------------------------------ attempts

export async function insertAttempt(db: Kysely<Database>, row: Omit<WebhookAttemptRow, 'id'>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/** Attempts of these messages, oldest first. */
export async function listAttempts(db: Kysely<Database>, messageIds: string[]): Promise<WebhookAttemptRow[]> {
  if (messageIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('message_id', 'in', messageIds).orderBy('id').execute();
}
