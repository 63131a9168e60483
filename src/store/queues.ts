/** Queue rows: state, config, target sha, engine bookkeeping. One SQL operation per function. */
import type { Kysely, Transaction } from 'kysely';
import type { Database, NewQueue, QueueRow, RepoRow } from './database.js';
import { dialectOf } from './dialect.js';
import { prepare } from './prepared.js';
import { repoNamed } from './repos.js';

export async function insertQueue(db: Kysely<Database>, queue: NewQueue): Promise<void> {
  await db.insertInto('queues').values(queue).execute();
}

export async function findQueue(
  db: Kysely<Database>,
  repoId: string,
  targetBranch: string,
): Promise<QueueRow | undefined> {
  return db
    .selectFrom('queues')
    .selectAll()
    .where('repo_id', '=', repoId)
    .where('target_branch', '=', targetBranch)
    .executeTakeFirst();
}

const lockedQueue = prepare((db, p: { id: string }) =>
  db
    .selectFrom('queues')
    .selectAll()
    .where('id', '=', p.id)
    .$if(dialectOf(db) === 'postgres', (q) => q.forUpdate()),
);

/**
 * The queue row, locked for the rest of the transaction on PostgreSQL so that two instances never
 * decide for the same queue at once (SQLite serialises writers by itself).
 */
export async function lockQueue(trx: Transaction<Database>, id: string): Promise<QueueRow | undefined> {
  return (await lockedQueue(trx, { id }))[0];
}

const queueVersion = prepare((db, p: { id: string }) =>
  db.selectFrom('queues').select('version').where('id', '=', p.id),
);

export async function findQueueVersion(db: Kysely<Database>, id: string): Promise<number | undefined> {
  return (await queueVersion(db, { id }))[0]?.version;
}

/** A queue row's columns under `q_` names, for a query that reads the queue beside another table's row. */
export const QUEUE_AS_Q = [
  'queues.id as q_id',
  'queues.target_branch as q_target_branch',
  'queues.state as q_state',
  'queues.config as q_config',
  'queues.target_sha as q_target_sha',
  'queues.internal as q_internal',
  'queues.version as q_version',
  'queues.created_at as q_created_at',
  'queues.updated_at as q_updated_at',
  'queues.managed_by as q_managed_by',
  'queues.drift_since as q_drift_since',
] as const;

type Prefixed = { [K in keyof QueueRow as K extends 'repo_id' ? never : `q_${K}`]: QueueRow[K] | null };

/** The queue row read under `q_` names (QUEUE_AS_Q), undefined when a left join found none; the rest of the row apart. */
export function splitQueueRow<R extends Prefixed>(
  row: R,
  repoId: string,
): { queue: QueueRow | undefined; rest: Omit<R, keyof Prefixed> } {
  const {
    q_id,
    q_target_branch,
    q_state,
    q_config,
    q_target_sha,
    q_internal,
    q_version,
    q_created_at,
    q_updated_at,
    q_managed_by,
    q_drift_since,
    ...rest
  } = row;
  const queue: QueueRow | undefined =
    q_id === null
      ? undefined
      : {
          id: q_id,
          repo_id: repoId,
          target_branch: q_target_branch!,
          state: q_state!,
          config: q_config!,
          target_sha: q_target_sha,
          internal: q_internal!,
          version: q_version!,
          created_at: q_created_at!,
          updated_at: q_updated_at!,
          managed_by: q_managed_by,
          drift_since: q_drift_since,
        };
  return { queue, rest };
}

const repoAndQueue = prepare((db, p: { host: string; owner: string; name: string; targetBranch: string }) =>
  db
    .selectFrom('repos')
    .leftJoin('queues', (join) =>
      join.onRef('queues.repo_id', '=', 'repos.id').on('queues.target_branch', '=', p.targetBranch),
    )
    .selectAll('repos')
    .select(QUEUE_AS_Q)
    .where(repoNamed(p)),
);

/** A repository and, when it has one, its queue for a branch: one lookup for both. */
export async function findRepoAndQueue(
  db: Kysely<Database>,
  ref: { host: string; owner: string; name: string },
  targetBranch: string,
): Promise<{ repo: RepoRow; queue: QueueRow | undefined } | undefined> {
  const [row] = await repoAndQueue(db, { host: ref.host, owner: ref.owner, name: ref.name, targetBranch });
  if (!row) return undefined;
  const { queue, rest: repo } = splitQueueRow(row, row.id);
  return { repo, queue };
}

const queueById = prepare((db, p: { id: string }) => db.selectFrom('queues').selectAll().where('id', '=', p.id));

export async function findQueueById(db: Kysely<Database>, id: string): Promise<QueueRow | undefined> {
  return (await queueById(db, { id }))[0];
}

export async function listQueuesOfRepos(db: Kysely<Database>, repoIds: string[]): Promise<QueueRow[]> {
  if (repoIds.length === 0) return [];
  return db
    .selectFrom('queues')
    .selectAll()
    .where('repo_id', 'in', repoIds)
    .orderBy('repo_id')
    .orderBy('target_branch')
    .execute();
}

/** Queues that hold at least one non-terminal entry: the ones the forge poller watches. */
export async function listQueuesWithActiveEntries(
  db: Kysely<Database>,
  terminal: readonly string[],
): Promise<QueueRow[]> {
  return db
    .selectFrom('queues')
    .selectAll()
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('entries')
          .select('entries.pr_number')
          .whereRef('entries.queue_id', '=', 'queues.id')
          .where('entries.state', 'not in', [...terminal]),
      ),
    )
    .execute();
}

type QueueChange = Pick<QueueRow, 'state' | 'config' | 'target_sha' | 'internal' | 'version' | 'updated_at'>;

const queueUpdate = prepare((db, p: QueueChange & { id: string }) =>
  db
    .updateTable('queues')
    .set({
      state: p.state,
      config: p.config,
      target_sha: p.target_sha,
      internal: p.internal,
      version: p.version,
      updated_at: p.updated_at,
    })
    .where('id', '=', p.id),
);

export async function updateQueueRow(trx: Transaction<Database>, id: string, set: QueueChange): Promise<void> {
  await queueUpdate(trx, { id, ...set });
}

/**
 * Records who made a config write (contract §2.10): a Terraform write marks the queue managed and
 * clears its drift; any other write to a managed queue starts its drift, unless it has begun already.
 */
export async function markConfigWrite(
  db: Kysely<Database>,
  id: string,
  byTerraform: boolean,
  at: number,
): Promise<void> {
  if (byTerraform) {
    await db.updateTable('queues').set({ managed_by: 'terraform', drift_since: null }).where('id', '=', id).execute();
  } else {
    await db
      .updateTable('queues')
      .set({ drift_since: at })
      .where('id', '=', id)
      .where('managed_by', 'is not', null)
      .where('drift_since', 'is', null)
      .execute();
  }
}

/** Deletes the queue and, by cascade, its entries, runs, statuses, effects, events and transitions. */
export async function deleteQueueRow(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('queues').where('id', '=', id).execute();
}
