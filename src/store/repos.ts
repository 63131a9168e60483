/** Connected repositories and their forge/CI binding. One SQL operation per function. */
import type { Kysely } from 'kysely';
import type { Database, RepoRow } from './database.js';
import { prepare } from './prepared.js';

export async function insertRepo(db: Kysely<Database>, repo: RepoRow): Promise<void> {
  await db.insertInto('repos').values(repo).execute();
}

const repoAt = prepare((db, p: { host: string; owner: string; name: string }) =>
  db.selectFrom('repos').selectAll().where('host', '=', p.host).where('owner', '=', p.owner).where('name', '=', p.name),
);

export async function findRepo(
  db: Kysely<Database>,
  host: string,
  owner: string,
  name: string,
): Promise<RepoRow | undefined> {
  return (await repoAt(db, { host, owner, name }))[0];
}

const repoById = prepare((db, p: { id: string }) => db.selectFrom('repos').selectAll().where('id', '=', p.id));

export async function findRepoById(db: Kysely<Database>, id: string): Promise<RepoRow | undefined> {
  return (await repoById(db, { id }))[0];
}

export async function listRepos(db: Kysely<Database>, orgId?: string): Promise<RepoRow[]> {
  return db
    .selectFrom('repos')
    .selectAll()
    .$if(orgId !== undefined, (q) => q.where('org_id', '=', orgId!))
    .orderBy('host')
    .orderBy('owner')
    .orderBy('name')
    .execute();
}

/** Deletes a repository with its queues and everything under them (cascade). */
export async function deleteRepo(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('repos').where('id', '=', id).execute();
}
