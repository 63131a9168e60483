/** Writes that must commit together, whether or not the caller already holds a transaction. */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';

/** Runs `work` in `db` when it is a transaction already, else in a new transaction. */
export function inTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}
