/**
 * API tokens: `gl_` + 32 random bytes in base64url, shown once, stored as SHA-256 hex, compared in
 * constant time, revocable. A token belongs to one organization.
 *
 * The server remembers valid tokens for one second (TokenCache), so that requests need no query to
 * authenticate; a token revoked meanwhile (the CLI writes the database directly, from another
 * process) is refused at most one second after its revocation.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../store/transaction.js';
import type { Database } from '../../store/database.js';
import { recordAudit, SYSTEM, type AuditCaller } from '../../audit/audit-log.js';
import { findActiveTokenWithOrg, findApiToken, insertApiToken, revokeApiToken } from '../../store/api-tokens.js';
import type { Clock } from '../../lib/clock.js';
import type { AuthContext } from '../request-scope.js';

const PREFIX = 'gl_';

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export function generateToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Creates a token for an org (by `by`, greenline itself unless told); the returned `token` is the only
 * time the secret exists in clear.
 */
export async function createApiToken(
  db: Kysely<Database>,
  orgId: string,
  name: string,
  at: number,
  by: AuditCaller = SYSTEM,
): Promise<{ id: string; token: string }> {
  const token = generateToken();
  const id = randomUUID();
  await inTransaction(db, async (trx) => {
    await insertApiToken(trx, {
      id,
      org_id: orgId,
      name,
      token_hash: hashToken(token),
      created_at: at,
      revoked_at: null,
    });
    await recordAudit(trx, { orgId, at, by, action: 'token.create', target: { token: id, name } });
  });
  return { id, token };
}

/** Revokes the active token `id` (by `by`); false when no active token has that id. */
export async function revokeToken(db: Kysely<Database>, id: string, at: number, by: AuditCaller): Promise<boolean> {
  const row = await findApiToken(db, id);
  if (!row) return false;
  return inTransaction(db, async (trx) => {
    if (!(await revokeApiToken(trx, id, at))) return false;
    await recordAudit(trx, {
      orgId: row.org_id,
      at,
      by,
      action: 'token.revoke',
      target: { token: id, name: row.name },
    });
    return true;
  });
}

const wellFormed = (token: string): boolean => token.startsWith(PREFIX) && token.length <= 200;

async function contextOfHash(db: Kysely<Database>, presented: string): Promise<AuthContext | null> {
  const row = await findActiveTokenWithOrg(db, presented);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(presented, 'hex'))) return null;
  return { orgId: row.org_id, orgName: row.org_name, tokenId: row.id, tokenName: row.name };
}

/** Resolves a presented token to its org, or null when it is unknown, revoked or malformed. */
export async function authenticateToken(db: Kysely<Database>, token: string): Promise<AuthContext | null> {
  return wellFormed(token) ? contextOfHash(db, hashToken(token)) : null;
}

/** How long a valid token is taken as still valid without asking the database: the revocation delay. */
export const TOKEN_RECHECK_MS = 1_000;
/** Tokens remembered at most; beyond, the least recently checked is forgotten. */
const MAX_REMEMBERED = 1_000;

/**
 * authenticateToken with valid answers remembered for TOKEN_RECHECK_MS, by hash. Refusals are never
 * remembered: a flood of unknown tokens neither grows the memory nor delays a token created meanwhile.
 */
export class TokenCache {
  private readonly valid = new Map<string, { context: AuthContext; checkedAt: number }>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async authenticate(token: string): Promise<AuthContext | null> {
    if (!wellFormed(token)) return null;
    const presented = hashToken(token);
    const now = this.clock.now();
    const known = this.valid.get(presented);
    // (A clock set back makes the answer stale too.)
    if (known && now >= known.checkedAt && now - known.checkedAt < TOKEN_RECHECK_MS) return known.context;
    this.valid.delete(presented);
    const context = await contextOfHash(this.db, presented);
    if (context) {
      this.valid.set(presented, { context, checkedAt: now });
      if (this.valid.size > MAX_REMEMBERED) this.valid.delete(this.valid.keys().next().value!);
    }
    return context;
  }
}
