/** API tokens, stored as SHA-256 hashes only. One SQL operation per function. */
import type { Kysely } from 'kysely';
import type { ApiTokenRow, Database, NewApiToken } from './database.js';
import { prepare } from './prepared.js';

export async function insertApiToken(db: Kysely<Database>, token: NewApiToken): Promise<void> {
  await db.insertInto('api_tokens').values(token).execute();
}

const activeTokenWithOrg = prepare((db, p: { hash: string }) =>
  db
    .selectFrom('api_tokens')
    .innerJoin('orgs', 'orgs.id', 'api_tokens.org_id')
    .selectAll('api_tokens')
    .select('orgs.name as org_name')
    .where('api_tokens.token_hash', '=', p.hash)
    .where('api_tokens.revoked_at', 'is', null),
);

/** The active token with this hash and the name of its org. */
export async function findActiveTokenWithOrg(
  db: Kysely<Database>,
  hash: string,
): Promise<(ApiTokenRow & { org_name: string }) | undefined> {
  return (await activeTokenWithOrg(db, { hash }))[0];
}

/** Records that a token was used at `at`. */
export async function markApiTokenUsed(db: Kysely<Database>, id: string, at: number): Promise<void> {
  await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** Whether any organization has an active (unrevoked) token. */
export async function anyActiveToken(db: Kysely<Database>): Promise<boolean> {
  return (
    (await db.selectFrom('api_tokens').select('id').where('revoked_at', 'is', null).limit(1).executeTakeFirst()) !==
    undefined
  );
}

/** Tokens of one org (or of every org), oldest first. */
export async function listApiTokens(db: Kysely<Database>, orgId?: string): Promise<ApiTokenRow[]> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .$if(orgId !== undefined, (q) => q.where('org_id', '=', orgId!))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Marks a token revoked; returns false when no unrevoked token has that id. */
/** The token with this id, revoked or not. */
export async function findApiToken(db: Kysely<Database>, id: string): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function revokeApiToken(db: Kysely<Database>, id: string, at: number): Promise<boolean> {
  const r = await db
    .updateTable('api_tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
