/**
 * Queue entries: one row per (queue, PR) holding the PR's latest trip; earlier trips live on in its
 * timeline. The whole Entry is JSON in `data`; the other columns are copies for queries.
 * One SQL operation per function.
 */
import type { Kysely } from 'kysely';
import type { Entry } from '../engine/types.js';
import type { RepoSite } from '../forge/links.js';
import type { Database, EntryRow } from './database.js';
import { prepare, prepareRows } from './prepared.js';
import { repoNamed } from './repos.js';

export function toEntryRow(queueId: string, e: Entry): EntryRow {
  return {
    queue_id: queueId,
    pr_number: e.prNumber,
    id: e.id,
    trip: e.trip,
    state: e.state,
    head_sha: e.headSha,
    submitted_at: e.submittedAt,
    state_changed_at: e.stateChangedAt,
    head_branch: e.headBranch ?? null,
    title: e.title,
    author: e.author,
    data: JSON.stringify(e),
  };
}

export const entryOf = (row: Pick<EntryRow, 'data'>): Entry => JSON.parse(row.data) as Entry;

const entriesUpsert = prepareRows((db, rows: EntryRow[]) =>
  db
    .insertInto('entries')
    .values(
      rows.map((r) => ({
        queue_id: r.queue_id,
        pr_number: r.pr_number,
        id: r.id,
        trip: r.trip,
        state: r.state,
        head_sha: r.head_sha,
        submitted_at: r.submitted_at,
        state_changed_at: r.state_changed_at,
        head_branch: r.head_branch,
        title: r.title,
        author: r.author,
        data: r.data,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['queue_id', 'pr_number']).doUpdateSet((eb) => ({
        id: eb.ref('excluded.id'),
        trip: eb.ref('excluded.trip'),
        state: eb.ref('excluded.state'),
        head_sha: eb.ref('excluded.head_sha'),
        submitted_at: eb.ref('excluded.submitted_at'),
        state_changed_at: eb.ref('excluded.state_changed_at'),
        head_branch: eb.ref('excluded.head_branch'),
        title: eb.ref('excluded.title'),
        author: eb.ref('excluded.author'),
        data: eb.ref('excluded.data'),
      })),
    ),
);

export async function upsertEntries(db: Kysely<Database>, queueId: string, entries: Entry[]): Promise<void> {
  if (entries.length === 0) return;
  await entriesUpsert(
    db,
    entries.map((e) => toEntryRow(queueId, e)),
  );
}

const entryData = prepare((db, p: { queueId: string; prNumber: number }) =>
  db.selectFrom('entries').select('data').where('queue_id', '=', p.queueId).where('pr_number', '=', p.prNumber),
);

export async function findEntry(db: Kysely<Database>, queueId: string, prNumber: number): Promise<Entry | undefined> {
  const [row] = await entryData(db, { queueId, prNumber });
  return row && entryOf(row);
}

const prOfQueue = prepare(
  (db, p: { host: string; owner: string; name: string; targetBranch: string; prNumber: number }) =>
    db
      .selectFrom('repos')
      .leftJoin('queues', (join) =>
        join.onRef('queues.repo_id', '=', 'repos.id').on('queues.target_branch', '=', p.targetBranch),
      )
      .leftJoin('entries', (join) =>
        join.onRef('entries.queue_id', '=', 'queues.id').on('entries.pr_number', '=', p.prNumber),
      )
      .select([
        'repos.org_id',
        'repos.forge',
        'repos.host',
        'repos.owner',
        'repos.name',
        'repos.pr_url_template',
        'queues.id as queue_id',
        'queues.config',
        'queues.state',
        'queues.target_sha',
        'entries.data',
      ])
      .where(repoNamed(p)),
);

/**
 * A PR's entry in the queue of a branch of a repository, with what is needed to show it, in one
 * lookup: the repository's org and site (for its forge links), the queue's id, settings (JSON), state and target commit,
 * the entry when there is one.
 */
export async function findPrOfQueue(
  db: Kysely<Database>,
  repo: { host: string; owner: string; name: string },
  targetBranch: string,
  prNumber: number,
): Promise<
  | {
      orgId: string;
      site: RepoSite;
      queue?: { id: string; config: string; state: string; target_sha: string | null };
      entry?: Entry;
    }
  | undefined
> {
  const [row] = await prOfQueue(db, { host: repo.host, owner: repo.owner, name: repo.name, targetBranch, prNumber });
  if (!row) return undefined;
  return {
    orgId: row.org_id,
    site: {
      forge: row.forge,
      // The stored spelling (the request may name the repository in another letter case).
      host: row.host,
      owner: row.owner,
      name: row.name,
      pr_url_template: row.pr_url_template,
    },
    ...(row.queue_id !== null
      ? { queue: { id: row.queue_id, config: row.config!, state: row.state!, target_sha: row.target_sha } }
      : {}),
    ...(row.data !== null ? { entry: entryOf({ data: row.data }) } : {}),
  };
}

/**
 * The entry of the PR submitted to a queue from a head branch: the one still in the queue, else the
 * one that left it last (contract §2.4); undefined when no PR from that branch was submitted.
 */
export async function findEntryByBranch(
  db: Kysely<Database>,
  queueId: string,
  headBranch: string,
  terminal: readonly string[],
): Promise<Entry | undefined> {
  const rows = await db
    .selectFrom('entries')
    .select(['state', 'data'])
    .where('queue_id', '=', queueId)
    .where('head_branch', '=', headBranch)
    .orderBy('state_changed_at', 'desc')
    .execute();
  const best = rows.find((r) => !terminal.includes(r.state)) ?? rows[0];
  return best && entryOf(best);
}

/** Entries whose state is not one of `terminal`. */
export async function listActiveEntries(
  db: Kysely<Database>,
  queueId: string,
  terminal: readonly string[],
): Promise<Entry[]> {
  const rows = await db
    .selectFrom('entries')
    .select('data')
    .where('queue_id', '=', queueId)
    .where('state', 'not in', [...terminal])
    .execute();
  return rows.map(entryOf);
}

/** PR numbers of a queue's non-terminal entries, lowest first. */
export async function listActivePrNumbers(
  db: Kysely<Database>,
  queueId: string,
  terminal: readonly string[],
): Promise<number[]> {
  const rows = await db
    .selectFrom('entries')
    .select('pr_number')
    .where('queue_id', '=', queueId)
    .where('state', 'not in', [...terminal])
    .orderBy('pr_number')
    .execute();
  return rows.map((r) => Number(r.pr_number));
}

/** Non-terminal entries of a PR at a head sha, in any queue of a repository. */
export async function listActiveEntriesAtSha(
  db: Kysely<Database>,
  repoId: string,
  prNumber: number,
  headSha: string,
  terminal: readonly string[],
): Promise<{ queueId: string; entry: Entry }[]> {
  const rows = await db
    .selectFrom('entries')
    .innerJoin('queues', 'queues.id', 'entries.queue_id')
    .select(['entries.queue_id', 'entries.data'])
    .where('queues.repo_id', '=', repoId)
    .where('entries.pr_number', '=', prNumber)
    .where('entries.head_sha', '=', headSha)
    .where('entries.state', 'not in', [...terminal])
    .execute();
  return rows.map((r) => ({ queueId: r.queue_id, entry: entryOf(r) }));
}

export interface EntryPageQuery {
  queueId: string;
  state?: string;
  /** Only entries in one of these states that changed state at or after `since`. */
  /** Only entries in a terminal state that they entered within [since, until] (either bound optional). */
  concluded?: { since?: number; until?: number; terminal: readonly string[] };
  /** Continue strictly after this (submittedAt, prNumber) position. */
  after?: { submittedAt: number; prNumber: number };
  limit: number;
}

/** A page of entries, most recently submitted first (ties: highest PR number first). */
export async function listEntriesPage(db: Kysely<Database>, q: EntryPageQuery): Promise<Entry[]> {
  const rows = await db
    .selectFrom('entries')
    .select('data')
    .where('queue_id', '=', q.queueId)
    .$if(q.state !== undefined, (b) => b.where('state', '=', q.state!))
    .$if(q.concluded !== undefined, (b) => b.where('state', 'in', [...q.concluded!.terminal]))
    .$if(q.concluded?.since !== undefined, (b) => b.where('state_changed_at', '>=', q.concluded!.since!))
    .$if(q.concluded?.until !== undefined, (b) => b.where('state_changed_at', '<=', q.concluded!.until!))
    .$if(q.after !== undefined, (b) =>
      b.where((eb) =>
        eb.or([
          eb('submitted_at', '<', q.after!.submittedAt),
          eb.and([eb('submitted_at', '=', q.after!.submittedAt), eb('pr_number', '<', q.after!.prNumber)]),
        ]),
      ),
    )
    .orderBy('submitted_at', 'desc')
    .orderBy('pr_number', 'desc')
    .limit(q.limit)
    .execute();
  return rows.map(entryOf);
}

/** Finds an entry of a queue by its id (the id is stable across a PR's trips). */
export async function findEntryById(db: Kysely<Database>, queueId: string, id: string): Promise<Entry | undefined> {
  const row = await db
    .selectFrom('entries')
    .select('data')
    .where('queue_id', '=', queueId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && entryOf(row);
}
