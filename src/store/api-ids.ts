/**
 * The v2 API's ids of queues and pull requests (migration 010). A queue's short id and a pull
 * request's UUID are derived from what they name (the queue's id; the repository id and PR number),
 * so writing one twice, even from two instances at once, writes the same row.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { prepare, prepareRows } from './prepared.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Short ids worked out, by queue id: every answer about an entry names its queue's. */
const shortIds = new Map<string, string>();

/** Ten lowercase letters and digits (about 51 bits) naming a queue. */
export function queueShortIdOf(queueId: string): string {
  let id = shortIds.get(queueId);
  if (id === undefined) {
    id = BigInt(`0x${digest(`queue:${queueId}`).toString('hex').slice(0, 16)}`)
      .toString(36)
      .padStart(13, '0')
      .slice(-10);
    if (shortIds.size >= 10_000) shortIds.clear();
    shortIds.set(queueId, id);
  }
  return id;
}

/** A version-5-shaped UUID naming a repository's pull request. */
export function pullRequestIdOf(repoId: string, prNumber: number): string {
  const b = digest(`pull-request:${repoId}:${prNumber}`).subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Records the short ids of these queues (those already recorded are left alone); answers them by queue id. */
export async function recordQueueShortIds(db: Kysely<Database>, queueIds: string[]): Promise<Map<string, string>> {
  const rows = queueIds.map((id) => ({ short_id: queueShortIdOf(id), queue_id: id }));
  if (rows.length > 0)
    await db
      .insertInto('queue_short_ids')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .execute();
  return new Map(rows.map((r) => [r.queue_id, r.short_id]));
}

const queueIdByShortId = prepare((db, p: { shortId: string }) =>
  db.selectFrom('queue_short_ids').select('queue_id').where('short_id', '=', p.shortId),
);

export async function findQueueIdByShortId(db: Kysely<Database>, shortId: string): Promise<string | undefined> {
  return (await queueIdByShortId(db, { shortId }))[0]?.queue_id;
}

export async function deleteQueueShortId(db: Kysely<Database>, queueId: string): Promise<void> {
  await db.deleteFrom('queue_short_ids').where('queue_id', '=', queueId).execute();
}

const pullRequestById = prepare((db, p: { id: string }) =>
  db.selectFrom('pull_request_ids').select(['repo_id', 'pr_number', 'created_at']).where('id', '=', p.id),
);

/** What a pull request id names (its repository and number) and when it was given out; never changes once written. */
export async function findPullRequestCoordinates(
  db: Kysely<Database>,
  id: string,
): Promise<{ repoId: string; prNumber: number; createdAt: number } | undefined> {
  const [row] = await pullRequestById(db, { id });
  return row && { repoId: row.repo_id, prNumber: Number(row.pr_number), createdAt: Number(row.created_at) };
}

const pullRequestCreatedAt = prepare((db, p: { id: string }) =>
  db.selectFrom('pull_request_ids').select('created_at').where('id', '=', p.id),
);

/**
 * The id of a repository's pull request and when it was given out, recording it (at `at`) on first
 * mention: a read when it is known already.
 */
export async function recordPullRequestId(
  db: Kysely<Database>,
  repoId: string,
  prNumber: number,
  at: number,
): Promise<{ id: string; createdAt: number }> {
  const id = pullRequestIdOf(repoId, prNumber);
  const known = (await pullRequestCreatedAt(db, { id }))[0];
  if (known) return { id, createdAt: Number(known.created_at) };
  await recordPullRequestIds(db, repoId, [prNumber], at);
  // Another instance may have given it out first.
  return { id, createdAt: Number((await pullRequestCreatedAt(db, { id }))[0]!.created_at) };
}

const insertPullRequestIds = prepareRows(
  (db, rows: { id: string; repo_id: string; pr_number: number; created_at: number }[]) =>
    db
      .insertInto('pull_request_ids')
      .values(rows.map((r) => ({ id: r.id, repo_id: r.repo_id, pr_number: r.pr_number, created_at: r.created_at })))
      .onConflict((oc) => oc.doNothing()),
);

/** Records the ids of a repository's pull requests; answers them by PR number. */
export async function recordPullRequestIds(
  db: Kysely<Database>,
  repoId: string,
  numbers: readonly number[],
  at: number,
): Promise<Map<number, string>> {
  const rows = [...new Set(numbers)].map((n) => ({
    id: pullRequestIdOf(repoId, n),
    repo_id: repoId,
    pr_number: n,
    created_at: at,
  }));
  if (rows.length > 0) await insertPullRequestIds(db, rows);
  return new Map(rows.map((r) => [r.pr_number, r.id]));
}
