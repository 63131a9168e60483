import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrap, ensureOrg } from '../../src/app/org-admin.js';
import { authenticateToken, createApiToken, generateToken, hashToken } from '../../src/app/tokens.js';
import { listApiTokens, revokeApiToken } from '../../src/store/api-tokens.js';
import { connect, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';

let db: Db;
beforeEach(async () => {
  db = connect({ databaseUrl: 'sqlite::memory:', dataDir: '' });
  await migrateToLatest(db);
});
afterEach(() => db.destroy());

describe('tokens', () => {
  it('are gl_ + 32 random bytes in base64url, different every time', () => {
    const a = generateToken();
    expect(a).toMatch(/^gl_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(3), 'base64url')).toHaveLength(32);
    expect(generateToken()).not.toBe(a);
  });

  it('are stored as their SHA-256 only', async () => {
    const org = await ensureOrg(db, 'acme', 1);
    const { token } = await createApiToken(db, org.id, 'ci', 1);
    const [row] = await listApiTokens(db, org.id);
    expect(row!.token_hash).toBe(hashToken(token));
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token.slice(3));
  });

  it('authenticate to their org until revoked; unknown or malformed tokens do not', async () => {
    const org = await ensureOrg(db, 'acme', 1);
    const { id, token } = await createApiToken(db, org.id, 'ci', 1);
    expect(await authenticateToken(db, token)).toEqual({ orgId: org.id, orgName: 'acme', tokenId: id });
    expect(await authenticateToken(db, generateToken())).toBeNull();
    expect(await authenticateToken(db, 'not-a-token')).toBeNull();
    expect(await authenticateToken(db, '')).toBeNull();
    await revokeApiToken(db, id, 2);
    expect(await authenticateToken(db, token)).toBeNull();
  });
});

describe('bootstrap', () => {
  it('creates org default and a token on the first start only', async () => {
    const first = await bootstrap(db, 1);
    expect(first?.org).toBe('default');
    expect(await authenticateToken(db, first!.token)).toMatchObject({ orgName: 'default' });
    expect(await bootstrap(db, 2)).toBeNull();
  });

  it('does nothing when an org already exists', async () => {
    await ensureOrg(db, 'acme', 1);
    expect(await bootstrap(db, 2)).toBeNull();
  });
});

describe('ensureOrg', () => {
  it('returns the existing org and refuses bad names', async () => {
    const a = await ensureOrg(db, 'acme', 1);
    expect((await ensureOrg(db, 'acme', 2)).id).toBe(a.id);
    await expect(ensureOrg(db, 'bad name', 1)).rejects.toThrow(/Invalid organization name/);
  });
});
