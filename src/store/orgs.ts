/** Organizations: the tenants. One SQL operation per function. */
import type { Kysely } from 'kysely';
import type { Database, OrgRow } from './database.js';

export async function insertOrg(db: Kysely<Database>, org: OrgRow): Promise<void> {
  await db.insertInto('orgs').values(org).execute();
}

export async function findOrgByName(db: Kysely<Database>, name: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function findOrgById(db: Kysely<Database>, id: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countOrgs(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('orgs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Names of every organization, sorted. */
export async function listOrgNames(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('orgs').select('name').orderBy('name').execute()).map((r) => r.name);
}
