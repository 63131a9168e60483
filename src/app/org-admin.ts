/** Administration of organizations and their tokens, shared by the CLI, server bootstrap and tests. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, OrgRow } from '../store/database.js';
import { countOrgs, findOrgByName, insertOrg } from '../store/orgs.js';
import { createApiToken } from './tokens.js';

const ORG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function validateOrgName(name: string): void {
  if (!ORG_NAME.test(name)) {
    throw new Error(`Invalid organization name "${name}": use letters, digits, ".", "_" or "-" (at most 100 characters)`);
  }
}

/** The org named `name`, created when missing. */
export async function ensureOrg(db: Kysely<Database>, name: string, at: number): Promise<OrgRow> {
  validateOrgName(name);
  const found = await findOrgByName(db, name);
  if (found) return found;
  const org: OrgRow = { id: randomUUID(), name, created_at: at };
  await insertOrg(db, org);
  return org;
}

/**
 * On the very first start (no organization at all) creates the org `default` and a token for it.
 * Returns the token to show once, or null when the database was already set up.
 */
export async function bootstrap(db: Kysely<Database>, at: number): Promise<{ org: string; token: string } | null> {
  if ((await countOrgs(db)) > 0) return null;
  // Several instances starting together on one new database: one creates the org, the others find it.
  const org: OrgRow = { id: randomUUID(), name: 'default', created_at: at };
  try {
    await insertOrg(db, org);
  } catch (err) {
    if (await findOrgByName(db, org.name)) return null;
    throw err;
  }
  const { token } = await createApiToken(db, org.id, 'bootstrap', at);
  return { org: org.name, token };
}
