/** What the dashboard reads beyond the v1 endpoints' queries. One SQL operation per function. */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Entry } from '../engine/types.js';
import type { Database } from './database.js';
import { entryOf } from './entries.js';

/** Per queue and state: how many transitions into one of `states` happened after `after`. */
export async function countTransitionsInto(
  db: Kysely<Database>,
  queueIds: readonly string[],
  states: readonly string[],
  after: number,
): Promise<{ queueId: string; state: string; count: number }[]> {
  if (queueIds.length === 0) return [];
  const rows = await db
    .selectFrom('transitions')
    .select(['queue_id', 'to_state'])
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('queue_id', 'in', [...queueIds])
    .where('at', '>', after)
    .where('to_state', 'in', [...states])
    .groupBy(['queue_id', 'to_state'])
    .execute();
  return rows.map((r) => ({ queueId: r.queue_id, state: r.to_state, count: Number(r.n) }));
}

/** The queue's entries in one of `states` (the terminal ones), most recently changed first. */
export async function listLatestEntriesInStates(
  db: Kysely<Database>,
  queueId: string,
  states: readonly string[],
  limit: number,
): Promise<Entry[]> {
  const rows = await db
    .selectFrom('entries')
    .select('data')
    .where('queue_id', '=', queueId)
    .where('state', 'in', [...states])
    .orderBy('state_changed_at', 'desc')
    .orderBy('pr_number', 'desc')
    .limit(limit)
    .execute();
  return rows.map(entryOf);
}

/** Which of a queue's concluded entries listConcludedEntries and countConcludedEntries read. */
export interface ConcludedFilter {
  queueId: string;
  /** Terminal states to include (at least one). */
  states: readonly string[];
  /** The PR's author, any letter case. */
  author?: string;
  /** Concluded at or after (ms). */
  from?: number;
  /** Concluded at or before (ms). */
  to?: number;
  /** Text in the title (any letter case), or the PR's number. */
  search?: { text: string; prNumber: number | null };
}

/** The LIKE pattern of `text` anywhere, its own % _ and \ escaped. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function concludedWhere(eb: ExpressionBuilder<Database, 'entries'>, f: ConcludedFilter): Expression<SqlBool> {
  const search = f.search;
  return eb.and([
    eb('queue_id', '=', f.queueId),
    eb('state', 'in', [...f.states]),
    ...(f.author !== undefined ? [eb(eb.fn('lower', ['author']), '=', f.author.toLowerCase())] : []),
    ...(f.from !== undefined ? [eb('state_changed_at', '>=', f.from)] : []),
    ...(f.to !== undefined ? [eb('state_changed_at', '<=', f.to)] : []),
    ...(search !== undefined
      ? [
          eb.or([
            sql<SqlBool>`lower(title) like ${containing(search.text)} escape '\\'`,
            ...(search.prNumber !== null ? [eb('pr_number', '=', search.prNumber)] : []),
          ]),
        ]
      : []),
  ]);
}

/**
 * A page of the queue's concluded entries matching `f`, most recently concluded first (then by PR
 * number, highest first); `after`: the last entry of the previous page.
 */
export async function listConcludedEntries(
  db: Kysely<Database>,
  f: ConcludedFilter,
  page: { after?: { at: number; prNumber: number }; limit: number },
): Promise<Entry[]> {
  const after = page.after;
  const rows = await db
    .selectFrom('entries')
    .select('data')
    .where((eb) => concludedWhere(eb, f))
    .$if(after !== undefined, (b) =>
      b.where((eb) =>
        eb.or([
          eb('state_changed_at', '<', after!.at),
          eb.and([eb('state_changed_at', '=', after!.at), eb('pr_number', '<', after!.prNumber)]),
        ]),
      ),
    )
    .orderBy('state_changed_at', 'desc')
    .orderBy('pr_number', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map(entryOf);
}

/** How many of the queue's concluded entries match `f`. */
export async function countConcludedEntries(db: Kysely<Database>, f: ConcludedFilter): Promise<number> {
  const row = await db
    .selectFrom('entries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where((eb) => concludedWhere(eb, f))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
