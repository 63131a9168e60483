/** The attempts of a delivery outbox (`tables.attempts`): one row per try at sending a message. */
import type { Kysely } from 'kysely';
import type { Database, DeliveryAttemptRow } from '../store/database.js';
import type { OutboxTables } from './tables.js';

export async function insertAttempt(
  db: Kysely<Database>,
  tables: OutboxTables,
  row: Omit<DeliveryAttemptRow, 'id'>,
): Promise<void> {
  await db.insertInto(tables.attempts).values(row).execute();
}

/** Attempts of these messages, oldest first. */
export async function listAttempts(
  db: Kysely<Database>,
  tables: OutboxTables,
  messageIds: string[],
): Promise<DeliveryAttemptRow[]> {
  if (messageIds.length === 0) return [];
  return db.selectFrom(tables.attempts).selectAll().where('message_id', 'in', messageIds).orderBy('id').execute();
}
