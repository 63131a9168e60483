/** Connected repositories and their forge/CI binding. One SQL operation per function. */
import type { Kysely } from 'kysely';
import type { Database, RepoRow } from './database.js';

export async function insertRepo(db: Kysely<Database>, repo: RepoRow): Promise<void> {
  await db.insertInto('repos').values(repo).execute();
}

export async function findRepo(db: Kysely<Database>, host: string, owner: string, name: string): Promise<RepoRow | undefined> {
  return db.selectFrom('repos').selectAll()
    .where('host', '=', host).where('owner', '=', owner).where('name', '=', name)
    .executeTakeFirst();
}

export async function findRepoById(db: Kysely<Database>, id: string): Promise<RepoRow | undefined> {
  return db.selectFrom('repos').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listRepos(db: Kysely<Database>, orgId?: string): Promise<RepoRow[]> {
  return db.selectFrom('repos').selectAll()
    .$if(orgId !== undefined, (q) => q.where('org_id', '=', orgId!))
    .orderBy('host').orderBy('owner').orderBy('name')
    .execute();
}

/** Deletes a repository with its queues and everything under them (cascade). */
export async function deleteRepo(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('repos').where('id', '=', id).execute();
}
