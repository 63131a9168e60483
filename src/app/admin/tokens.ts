/**
 * API tokens: `gl_` + 32 random bytes in base64url, shown once, stored as SHA-256 hex, compared in
 * constant time, revocable. A token belongs to one organization; it may be limited to scopes and
 * repositories (app/scopes.ts) and expire. Its last use is recorded to the minute.
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
import {
  findActiveTokenWithOrg,
  findApiToken,
  insertApiToken,
  markApiTokenUsed,
  revokeApiToken,
} from '../../store/api-tokens.js';
import type { Clock } from '../../lib/clock.js';
import { ServiceError } from '../../lib/errors.js';
import type { AuthContext } from '../request-scope.js';
import { effectiveScopes, type Scope } from '../scopes.js';

const PREFIX = 'gl_';

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export function generateToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** What a token is limited to; each absent: no limit (every scope, every repository, no expiry). */
export interface TokenLimits {
  scopes?: readonly Scope[];
  /** `host/owner/name` of repositories connected to the token's organization. */
  repos?: readonly string[];
  /** When it stops being valid (ms). */
  expiresAt?: number;
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
  limits: TokenLimits = {},
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
      scopes: limits.scopes ? JSON.stringify(limits.scopes) : null,
      repos: limits.repos ? JSON.stringify(limits.repos.map((r) => r.toLowerCase())) : null,
      expires_at: limits.expiresAt ?? null,
    });
    const limited = {
      ...(limits.scopes ? { scopes: limits.scopes } : {}),
      ...(limits.repos ? { repos: limits.repos } : {}),
      ...(limits.expiresAt !== undefined ? { expiresAt: new Date(limits.expiresAt).toISOString() } : {}),
    };
    await recordAudit(trx, { orgId, at, by, action: 'token.create', target: { token: id, name, ...limited } });
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

/** How stale a token's recorded last use may be: it is written at most this often. */
export const LAST_USED_PRECISION_MS = 60_000;

/** The refusal of a token past its expiry, saying when it expired and what to do. */
export function tokenExpired(ctx: Pick<AuthContext, 'orgName' | 'tokenName'>, expiresAt: number): ServiceError {
  return new ServiceError(
    'TOKEN_EXPIRED',
    `The API token "${ctx.tokenName ?? ''}" expired at ${new Date(expiresAt).toISOString()}; create a new one with greenline token create --org ${ctx.orgName} --name <name> (and --expires-in for how long it lasts)`,
  );
}

const wellFormed = (token: string): boolean => token.startsWith(PREFIX) && token.length <= 200;

/**
 * The caller a token hash names, or null when no active token has it; throws TOKEN_EXPIRED for a
 * token past its expiry. Records the token's use when the recorded one is a minute old or more.
 */
async function contextOfHash(db: Kysely<Database>, presented: string, now: number): Promise<AuthContext | null> {
  const row = await findActiveTokenWithOrg(db, presented);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(presented, 'hex'))) return null;
  const ctx: AuthContext = {
    orgId: row.org_id,
    orgName: row.org_name,
    tokenId: row.id,
    tokenName: row.name,
    scopes: effectiveScopes(row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[])),
    ...(row.repos === null ? {} : { repos: JSON.parse(row.repos) as string[] }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
  };
  if (row.expires_at !== null && now >= row.expires_at) throw tokenExpired(ctx, row.expires_at);
  if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_PRECISION_MS)
    await markApiTokenUsed(db, row.id, now);
  return ctx;
}

/**
 * Resolves a presented token to its caller, or null when it is unknown, revoked or malformed;
 * throws TOKEN_EXPIRED for an expired one.
 */
export async function authenticateToken(
  db: Kysely<Database>,
  token: string,
  now: number = Date.now(),
): Promise<AuthContext | null> {
  return wellFormed(token) ? contextOfHash(db, hashToken(token), now) : null;
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
    if (known && now >= known.checkedAt && now - known.checkedAt < TOKEN_RECHECK_MS) {
      const { expiresAt } = known.context;
      if (expiresAt !== undefined && now >= expiresAt) throw tokenExpired(known.context, expiresAt);
      return known.context;
    }
    this.valid.delete(presented);
    const context = await contextOfHash(this.db, presented, now);
    if (context) {
      this.valid.set(presented, { context, checkedAt: now });
      if (this.valid.size > MAX_REMEMBERED) this.valid.delete(this.valid.keys().next().value!);
    }
    return context;
  }
}
