/** Administration of organizations and their tokens, shared by the CLI, server bootstrap and tests. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../store/transaction.js';
import type { Database, OrgRow } from '../../store/database.js';
import { anyActiveToken } from '../../store/api-tokens.js';
import { findOrgByName, insertOrg, insertOrgIfMissing, listOrgNames, lockOrgByName } from '../../store/orgs.js';
import { recordAudit, SYSTEM, type AuditCaller } from '../../audit/audit-log.js';
import { createApiToken } from './tokens.js';

const ORG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function validateOrgName(name: string): void {
  if (!ORG_NAME.test(name)) {
    throw new Error(
      `Invalid organization name "${name}": use letters, digits, ".", "_" or "-" (at most 100 characters)`,
    );
  }
}

/** The org named `name`, created when missing (by `by`, greenline itself unless told). */
export async function ensureOrg(
  db: Kysely<Database>,
  name: string,
  at: number,
  by: AuditCaller = SYSTEM,
): Promise<OrgRow> {
  validateOrgName(name);
  const found = await findOrgByName(db, name);
  if (found) return found;
  const org: OrgRow = { id: randomUUID(), name, created_at: at };
  await inTransaction(db, async (trx) => {
    await insertOrg(trx, org);
    await recordAudit(trx, { orgId: org.id, at, by, action: 'org.create', target: { org: name } });
  });
  return org;
}

/** The organization a start creates when the database holds no active token. */
export const BOOTSTRAP_ORG = 'default';

/** A token created by `bootstrap`, to show once; or, when tokens exist, the organizations there are. */
export type BootstrapResult = { org: string; token: string } | { token: null; orgs: string[] };

/**
 * Run on every start. When the database holds no active API token (a first start, a start after
 * `repo connect` or `token create` ran before any, or every token revoked), creates one for the org
 * `default`, creating the org when missing, so that the API can be used at all.
 *
 * Several instances starting together on one PostgreSQL database create one token between them:
 * each locks the org's row (lockOrgByName) and looks for an active token again while it holds the
 * lock, so the later ones find the token the first one committed.
 */
export async function bootstrap(db: Kysely<Database>, at: number): Promise<BootstrapResult> {
  const existing = async (): Promise<BootstrapResult> => ({ token: null, orgs: await listOrgNames(db) });
  if (await anyActiveToken(db)) return existing();
  const created = await db.transaction().execute(async (trx) => {
    await insertOrgIfMissing(trx, { id: randomUUID(), name: BOOTSTRAP_ORG, created_at: at });
    const org = (await lockOrgByName(trx, BOOTSTRAP_ORG))!;
    if (await anyActiveToken(trx)) return null;
    const { token } = await createApiToken(trx, org.id, 'bootstrap', at);
    return { org: org.name, token };
  });
  return created ?? existing();
}
