/** Organizations: the tenants. One SQL operation per function. */
import type { Kysely, Transaction } from 'kysely';
import type { Database, OrgRow } from './database.js';
import { dialectOf } from './dialect.js';

export async function insertOrg(db: Kysely<Database>, org: OrgRow): Promise<void> {
  await db.insertInto('orgs').values(org).execute();
}

/** Inserts the org unless one has its name already (then leaves that one as it is). */
export async function insertOrgIfMissing(db: Kysely<Database>, org: OrgRow): Promise<void> {
  await db
    .insertInto('orgs')
    .values(org)
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/**
 * The org named `name`, locked for the rest of the transaction on PostgreSQL, so that instances doing
 * the same work for it take turns (SQLite serialises writers by itself).
 */
export async function lockOrgByName(trx: Transaction<Database>, name: string): Promise<OrgRow | undefined> {
  return trx
    .selectFrom('orgs')
    .selectAll()
    .where('name', '=', name)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
}

export async function findOrgByName(db: Kysely<Database>, name: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function findOrgById(db: Kysely<Database>, id: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Names of every organization, sorted. */
export async function listOrgNames(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('orgs').select('name').orderBy('name').execute()).map((r) => r.name);
}
