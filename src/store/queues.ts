/** Queue rows: state, config, target sha, engine bookkeeping. One SQL operation per function. */
import type { Kysely, Transaction } from 'kysely';
import type { Database, QueueRow, RepoRow } from './database.js';
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

export async function findQueueVersion(db: Kysely<Database>, id: string): Promise<number | undefined> {
  const row = await db.selectFrom('queues').select('version').where('id', '=', id).executeTakeFirst();
  return row?.version;
}

/** A repository and, when it has one, its queue for a branch: one lookup for both. */
export async function findRepoAndQueue(
  db: Kysely<Database>, ref: { host: string; owner: string; name: string }, targetBranch: string,
): Promise<{ repo: RepoRow; queue: QueueRow | undefined } | undefined> {
  const row = await db.selectFrom('repos')
    .leftJoin('queues', (join) => join.onRef('queues.repo_id', '=', 'repos.id').on('queues.target_branch', '=', targetBranch))
    .selectAll('repos')
    .select([
      'queues.id as q_id', 'queues.target_branch as q_target_branch', 'queues.state as q_state', 'queues.config as q_config',
      'queues.target_sha as q_target_sha', 'queues.internal as q_internal', 'queues.version as q_version',
      'queues.created_at as q_created_at', 'queues.updated_at as q_updated_at',
    ])
    .where('repos.host', '=', ref.host).where('repos.owner', '=', ref.owner).where('repos.name', '=', ref.name)
    .executeTakeFirst();
  if (!row) return undefined;
  const { q_id, q_target_branch, q_state, q_config, q_target_sha, q_internal, q_version, q_created_at, q_updated_at, ...repo } = row;
  const queue: QueueRow | undefined = q_id === null ? undefined : {
    id: q_id, repo_id: repo.id, target_branch: q_target_branch!, state: q_state!, config: q_config!, target_sha: q_target_sha,
    internal: q_internal!, version: q_version!, created_at: q_created_at!, updated_at: q_updated_at!,
  };
  return { repo, queue };
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
