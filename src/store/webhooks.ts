/**
 * Webhook subscriptions. One SQL operation per function. Their messages and attempts are the webhooks'
 * delivery outbox (src/delivery/, webhooks/outbox.ts).
 */
import type { Kysely, Updateable } from 'kysely';
import type { Database, WebhookSubscriptionRow, WebhookSubscriptionsTable } from './database.js';

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
