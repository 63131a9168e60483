/**
 * API tokens: `gl_` + 32 random bytes in base64url, shown once, stored as SHA-256 hex, compared in
 * constant time, revocable. A token belongs to one organization.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/database.js';
import { findActiveTokenWithOrg, insertApiToken } from '../store/api-tokens.js';
import type { AuthContext } from './types.js';

const PREFIX = 'gl_';

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export function generateToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** Creates a token for an org; the returned `token` is the only time the secret exists in clear. */
export async function createApiToken(
  db: Kysely<Database>, orgId: string, name: string, at: number,
): Promise<{ id: string; token: string }> {
  const token = generateToken();
  const id = randomUUID();
  await insertApiToken(db, { id, org_id: orgId, name, token_hash: hashToken(token), created_at: at, revoked_at: null });
  return { id, token };
}

/** Resolves a presented token to its org, or null when it is unknown, revoked or malformed. */
export async function authenticateToken(db: Kysely<Database>, token: string): Promise<AuthContext | null> {
  if (!token.startsWith(PREFIX) || token.length > 200) return null;
  const presented = hashToken(token);
  const row = await findActiveTokenWithOrg(db, presented);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(presented, 'hex'))) return null;
  return { orgId: row.org_id, orgName: row.org_name, tokenId: row.id };
}
