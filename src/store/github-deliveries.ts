/** GitHub webhook deliveries already taken (by `X-GitHub-Delivery` id): each is processed once. */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

/** Records the delivery; false when it was recorded before (a redelivery or a duplicate). */
export async function claimDelivery(db: Kysely<Database>, id: string, event: string, at: number): Promise<boolean> {
  const res = await db
    .insertInto('github_deliveries')
    .values({ id, event, received_at: at })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Forgets a delivery whose processing failed, so that GitHub's redelivery is processed. */
export async function releaseDelivery(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('github_deliveries').where('id', '=', id).execute();
}
