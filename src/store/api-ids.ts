/**
 * The v2 API's ids of queues and pull requests (migration 010). A queue's short id and a pull
 * request's UUID are derived from what they name (the queue's id; the repository id and PR number),
 * so writing one twice, even from two instances at once, writes the same row.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Ten lowercase letters and digits (about 51 bits) naming a queue. */
export const queueShortIdOf = (queueId: string): string =>
  BigInt(`0x${digest(`queue:${queueId}`).toString('hex').slice(0, 16)}`)
    .toString(36)
    .padStart(13, '0')
    .slice(-10);

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

export async function findQueueIdByShortId(db: Kysely<Database>, shortId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('queue_short_ids')
    .select('queue_id')
    .where('short_id', '=', shortId)
    .executeTakeFirst();
  return row?.queue_id;
}

export async function deleteQueueShortId(db: Kysely<Database>, queueId: string): Promise<void> {
  await db.deleteFrom('queue_short_ids').where('queue_id', '=', queueId).execute();
}

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
  if (rows.length > 0)
    await db
      .insertInto('pull_request_ids')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .execute();
  return new Map(rows.map((r) => [r.pr_number, r.id]));
}
