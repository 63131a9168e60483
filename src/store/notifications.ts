/**
 * Chat channels (notify_subscriptions). Their messages and attempts are the notifications' delivery
 * outbox (src/delivery/, notify/outbox.ts).
 */
import type { Kysely, Updateable } from 'kysely';
import type { Database, NotifySubscriptionRow, NotifySubscriptionsTable } from './database.js';

export async function insertChannel(db: Kysely<Database>, row: NotifySubscriptionRow): Promise<void> {
  await db.insertInto('notify_subscriptions').values(row).execute();
}

export async function findChannel(db: Kysely<Database>, id: string): Promise<NotifySubscriptionRow | undefined> {
  return db.selectFrom('notify_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Channels of one org (or of every org), oldest first. */
export async function listChannels(db: Kysely<Database>, orgId?: string): Promise<NotifySubscriptionRow[]> {
  return db
    .selectFrom('notify_subscriptions')
    .selectAll()
    .$if(orgId !== undefined, (q) => q.where('org_id', '=', orgId!))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The enabled channels of an org that cover a queue: those for every queue, and those for this one. */
export async function enabledChannelsOfQueue(
  db: Kysely<Database>,
  orgId: string,
  repoId: string,
  targetBranch: string,
): Promise<NotifySubscriptionRow[]> {
  return db
    .selectFrom('notify_subscriptions')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('enabled', '=', 1)
    .where((eb) =>
      eb.or([eb('repo_id', 'is', null), eb.and([eb('repo_id', '=', repoId), eb('target_branch', '=', targetBranch)])]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateChannel(
  db: Kysely<Database>,
  id: string,
  patch: Updateable<NotifySubscriptionsTable>,
): Promise<void> {
  await db.updateTable('notify_subscriptions').set(patch).where('id', '=', id).execute();
}

export async function deleteChannel(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('notify_subscriptions').where('id', '=', id).execute();
}
