/**
 * webhook_messages.claimed_by: the instance whose attempt of a message is in flight (null otherwise).
 * When an instance takes over the queues of one that stopped renewing its leases, the dead instance's
 * reservations are handed back at once (queue-takeover.ts) instead of waiting out their own length.
 */
import type { Migration } from 'kysely';

export const deliveryClaims: Migration = {
  async up(db): Promise<void> {
    await db.schema.alterTable('webhook_messages').addColumn('claimed_by', 'text').execute();
  },

  async down(db): Promise<void> {
    await db.schema.alterTable('webhook_messages').dropColumn('claimed_by').execute();
  },
};
