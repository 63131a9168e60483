/**
 * Connected repositories and their forge/CI binding. One SQL operation per function. A repository is
 * found by its host/owner/name in any letter case: hosts are case-insensitive, and so are GitHub's
 * owner and repository names (`acme/web` and `Acme/Web` are one repository).
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database, RepoRow } from './database.js';
import { prepare } from './prepared.js';

export async function insertRepo(db: Kysely<Database>, repo: RepoRow): Promise<void> {
  await db.insertInto('repos').values(repo).execute();
}

/**
 * The condition "this row of `repos` is host/owner/name", in any letter case (lower() on both sides;
 * the index repos_host_owner_name_lower serves it). Every query that finds a repository by its name uses it.
 */
export const repoNamed = (p: { host: string; owner: string; name: string }) =>
  sql<SqlBool>`lower(repos.host) = lower(${p.host}) and lower(repos.owner) = lower(${p.owner}) and lower(repos.name) = lower(${p.name})`;

const repoAt = prepare((db, p: { host: string; owner: string; name: string }) =>
  db.selectFrom('repos').selectAll().where(repoNamed(p)),
);

export async function findRepo(
  db: Kysely<Database>,
  host: string,
  owner: string,
  name: string,
): Promise<RepoRow | undefined> {
  return (await repoAt(db, { host, owner, name }))[0];
}

/**
 * Every repository named host/owner/name in any letter case, with its organization's name: one, unless
 * stores from before names were compared in any case hold several spellings.
 */
export async function reposNamedWithOrg(
  db: Kysely<Database>,
  host: string,
  owner: string,
  name: string,
): Promise<(RepoRow & { org_name: string })[]> {
  return db
    .selectFrom('repos')
    .innerJoin('orgs', 'orgs.id', 'repos.org_id')
    .selectAll('repos')
    .select('orgs.name as org_name')
    .where(repoNamed({ host, owner, name }))
    .orderBy('orgs.name')
    .orderBy('repos.id')
    .execute();
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
