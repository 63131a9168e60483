/** Queue rows: state, config, target sha, engine bookkeeping. One SQL operation per function. */
import type { Kysely, Transaction } from 'kysely';
import type { Database, QueueRow } from './database.js';
import { dialectOf } from './dialect.js';

export async function insertQueue(db: Kysely<Database>, queue: QueueRow): Promise<void> {
  await db.insertInto('queues').values(queue).execute();
}

export async function findQueue(db: Kysely<Database>, repoId: string, targetBranch: string): Promise<QueueRow | undefined> {
  return db.selectFrom('queues').selectAll()
    .where('repo_id', '=', repoId).where('target_branch', '=', targetBranch)
    .executeTakeFirst();
}

/**
 * The queue row, locked for the rest of the transaction on PostgreSQL so that two instances never
 * decide for the same queue at once (SQLite serialises writers by itself).
 */
export async function lockQueue(trx: Transaction<Database>, id: string): Promise<QueueRow | undefined> {
  return trx.selectFrom('queues').selectAll().where('id', '=', id)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
}

export async function findQueueById(db: Kysely<Database>, id: string): Promise<QueueRow | undefined> {
  return db.selectFrom('queues').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listQueuesOfRepos(db: Kysely<Database>, repoIds: string[]): Promise<QueueRow[]> {
  if (repoIds.length === 0) return [];
  return db.selectFrom('queues').selectAll().where('repo_id', 'in', repoIds)
    .orderBy('repo_id').orderBy('target_branch').execute();
}

/** Queues that hold at least one non-terminal entry: the ones the forge poller watches. */
export async function listQueuesWithActiveEntries(db: Kysely<Database>, terminal: readonly string[]): Promise<QueueRow[]> {
  return db.selectFrom('queues').selectAll()
    .where(({ exists, selectFrom }) => exists(
      selectFrom('entries').select('entries.pr_number')
        .whereRef('entries.queue_id', '=', 'queues.id')
        .where('entries.state', 'not in', [...terminal]),
    ))
    .execute();
}

export async function updateQueueRow(
  trx: Transaction<Database>,
  id: string,
  set: Pick<QueueRow, 'state' | 'config' | 'target_sha' | 'internal' | 'version' | 'updated_at'>,
): Promise<void> {
  await trx.updateTable('queues').set(set).where('id', '=', id).execute();
}

/** Deletes the queue and, by cascade, its entries, runs, statuses, effects, events and transitions. */
export async function deleteQueueRow(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('queues').where('id', '=', id).execute();
}
