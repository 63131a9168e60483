/**
 * CI statuses reported for a commit of a repository before any test run was known to have it as its
 * test commit: one row per (repo, sha, context), the latest report wins. Taken (read and deleted) when
 * a run gets that commit; the others are deleted by the retention sweep (store/retention.ts).
 */
import type { Kysely } from 'kysely';
import type { CiStatus } from '../forge/port.js';
import type { Database } from './database.js';

export async function holdEarlyStatus(
  db: Kysely<Database>,
  repoId: string,
  sha: string,
  status: CiStatus,
  at: number,
): Promise<void> {
  const row = {
    repo_id: repoId,
    sha,
    context: status.context,
    state: status.state,
    url: status.url ?? null,
    description: status.description ?? null,
    received_at: at,
  };
  await db
    .insertInto('early_ci_statuses')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['repo_id', 'sha', 'context']).doUpdateSet({
        state: row.state,
        url: row.url,
        description: row.description,
        received_at: at,
      }),
    )
    .execute();
}

/** The statuses held for the commit, deleted as they are returned. */
export async function takeEarlyStatuses(db: Kysely<Database>, repoId: string, sha: string): Promise<CiStatus[]> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('early_ci_statuses')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('sha', '=', sha)
      .orderBy('received_at')
      .execute();
    if (rows.length > 0)
      await trx.deleteFrom('early_ci_statuses').where('repo_id', '=', repoId).where('sha', '=', sha).execute();
    return rows.map((r) => ({
      context: r.context,
      state: r.state as CiStatus['state'],
      ...(r.url !== null ? { url: r.url } : {}),
      ...(r.description !== null ? { description: r.description } : {}),
    }));
  });
}
