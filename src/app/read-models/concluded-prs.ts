/**
 * A queue's concluded pull requests, filtered and a page at a time (listConcludedPullRequests): the
 * dashboard's history table. Each PR's latest trip, as the entries table holds it; newest first.
 */
import type { Kysely } from 'kysely';
import { TERMINAL_STATES, type Entry, type PrState, type QueueSnapshot } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import type { Database, QueueRow } from '../../store/database.js';
import { countConcludedEntries, listConcludedEntries, type ConcludedFilter } from '../../store/queue-activity.js';
import { queueConfigOf } from '../executor/snapshot-io.js';

/** The largest page listConcludedPullRequests answers. */
export const MAX_CONCLUDED_TAKE = 100;

export interface ConcludedQuery {
  /** Terminal states to list; empty or absent: all three. */
  states?: readonly PrState[];
  author?: string;
  /** Concluded at or after / at or before (ms). */
  from?: number;
  to?: number;
  /** Text in the title, or a PR number (with or without #). */
  search?: string;
  /** nextCursor of the previous page. */
  cursor?: string;
  take: number;
}

export interface ConcludedPage {
  /** What the reasons are told against (the queue's branch and config). */
  queue: Pick<QueueSnapshot, 'targetBranch' | 'config'>;
  items: Entry[];
  /** Entries matching the filters, every page together. */
  total: number;
  /** For the next page; absent on the last one. */
  nextCursor?: string;
}

const BAD_CURSOR =
  'cursor is not a nextCursor returned by listConcludedPullRequests: send it back unchanged, or leave it out to start from the newest';

/** The cursor names the last entry of a page by its conclusion time and PR number: the sort key. */
const cursorOf = (e: Entry) => Buffer.from(`${e.stateChangedAt}:${e.prNumber}`).toString('base64url');

function afterOf(cursor: string): { at: number; prNumber: number } {
  const m = /^([0-9]{1,15}):([0-9]{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new ServiceError('VALIDATION_FAILED', BAD_CURSOR);
  return { at: Number(m[1]), prNumber: Number(m[2]) };
}

/** The search text as the store takes it: a number (with or without #) matches the PR number too. */
function searchOf(search: string | undefined): ConcludedFilter['search'] {
  const text = search?.trim() ?? '';
  if (text === '') return undefined;
  const number = /^#?([0-9]{1,15})$/.exec(text);
  return { text, prNumber: number ? Number(number[1]) : null };
}

/** A page of the queue's concluded PRs (the caller's queue, resolved by the service). */
export async function listConcluded(db: Kysely<Database>, queue: QueueRow, q: ConcludedQuery): Promise<ConcludedPage> {
  if (!Number.isInteger(q.take) || q.take < 1 || q.take > MAX_CONCLUDED_TAKE) {
    throw new ServiceError('VALIDATION_FAILED', `take must be an integer from 1 to ${MAX_CONCLUDED_TAKE}`);
  }
  if (q.from !== undefined && q.to !== undefined && q.from > q.to) {
    throw new ServiceError('VALIDATION_FAILED', 'from is after to: swap them, or leave one out');
  }
  const after = q.cursor === undefined ? undefined : afterOf(q.cursor);
  const filter: ConcludedFilter = {
    queueId: queue.id,
    states: q.states !== undefined && q.states.length > 0 ? q.states : TERMINAL_STATES,
    ...(q.author !== undefined && q.author.trim() !== '' ? { author: q.author.trim() } : {}),
    ...(q.from !== undefined ? { from: q.from } : {}),
    ...(q.to !== undefined ? { to: q.to } : {}),
  };
  const search = searchOf(q.search);
  if (search) filter.search = search;
  const [rows, total] = await Promise.all([
    listConcludedEntries(db, filter, { ...(after ? { after } : {}), limit: q.take + 1 }),
    countConcludedEntries(db, filter),
  ]);
  const items = rows.slice(0, q.take);
  const page: ConcludedPage = {
    queue: { targetBranch: queue.target_branch, config: queueConfigOf(queue) },
    items,
    total,
  };
  if (rows.length > q.take) page.nextCursor = cursorOf(items[items.length - 1]!);
  return page;
}
