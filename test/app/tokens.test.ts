import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { ensureOrg } from '../../src/app/admin/org-admin.js';
import {
  TOKEN_RECHECK_MS,
  TokenCache,
  authenticateToken,
  createApiToken,
  generateToken,
  hashToken,
} from '../../src/app/admin/tokens.js';
import { EVERY_SCOPE } from '../../src/app/scopes.js';
import { insertApiToken, listApiTokens, revokeApiToken } from '../../src/store/api-tokens.js';
import { connect, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { migratedServiceDatabase, projectDatabase } from '../helpers/databases.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';

let db: Db;
let release: () => void;
beforeEach(async () => {
  const database = await migratedServiceDatabase();
  release = database.release;
  db = connect({ databaseUrl: database.url, dataDir: '' });
  await migrateToLatest(db);
});
afterEach(async () => {
  await db.destroy();
  release();
});

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
    expect(await authenticateToken(db, token)).toEqual({
      orgId: org.id,
      orgName: 'acme',
      tokenId: id,
      tokenName: 'ci',
      scopes: EVERY_SCOPE,
    });
    expect(await authenticateToken(db, generateToken())).toBeNull();
    expect(await authenticateToken(db, 'not-a-token')).toBeNull();
    expect(await authenticateToken(db, '')).toBeNull();
    await revokeApiToken(db, id, 2);
    expect(await authenticateToken(db, token)).toBeNull();
  });
});

describe('TokenCache', () => {
  let dir: string | undefined;
  let sharedUrl: string;
  let releaseShared: (() => void) | undefined;
  let server: Db;
  let cli: Db;
  const clock = new ManualClock();
  beforeEach(async () => {
    // SQLite shares a database between processes in a file, PostgreSQL on the server.
    if (projectDatabase() === 'postgres') {
      const database = await migratedServiceDatabase();
      ({ url: sharedUrl, release: releaseShared } = database);
    } else {
      dir = await makeTempDir('greenline-tokens-');
      sharedUrl = `sqlite:${path.join(dir, 'greenline.db')}`;
    }
    // The server's store and, on the same database, the CLI's: another connection, as from another process.
    server = connect({ databaseUrl: sharedUrl, dataDir: '' });
    await migrateToLatest(server);
    cli = connect({ databaseUrl: sharedUrl, dataDir: '' });
  });
  afterEach(async () => {
    await cli.destroy();
    await server.destroy();
    releaseShared?.();
    if (dir) await removeTempDir(dir);
  });

  it(`refuses a token revoked from another process at most ${TOKEN_RECHECK_MS} ms after the revocation`, async () => {
    const tokens = new TokenCache(server, clock);
    const org = await ensureOrg(cli, 'acme', 1);
    const { id, token } = await createApiToken(cli, org.id, 'ci', 1);
    expect(await tokens.authenticate(token)).toEqual({
      orgId: org.id,
      orgName: 'acme',
      tokenId: id,
      tokenName: 'ci',
      scopes: EVERY_SCOPE,
    });
    await revokeApiToken(cli, id, clock.now());
    // Within the bound the remembered answer stands (that is the documented delay) …
    clock.advance(TOKEN_RECHECK_MS - 1);
    expect(await tokens.authenticate(token)).toMatchObject({ tokenId: id });
    // … and once it has passed the database is asked again.
    clock.advance(1);
    expect(await tokens.authenticate(token)).toBeNull();
    expect(await tokens.authenticate(token)).toBeNull();
  });

  it('asks again when the clock was set back', async () => {
    const tokens = new TokenCache(server, clock);
    const org = await ensureOrg(cli, 'acme', 1);
    const { id, token } = await createApiToken(cli, org.id, 'ci', 1);
    expect(await tokens.authenticate(token)).not.toBeNull();
    await revokeApiToken(cli, id, clock.now());
    clock.advance(-1);
    expect(await tokens.authenticate(token)).toBeNull();
  });

  it('never remembers a refusal: a token is accepted as soon as it exists', async () => {
    const tokens = new TokenCache(server, clock);
    const org = await ensureOrg(cli, 'acme', 1);
    const token = generateToken();
    expect(await tokens.authenticate(token)).toBeNull();
    await insertApiToken(cli, {
      id: 't1',
      org_id: org.id,
      name: 'ci',
      token_hash: hashToken(token),
      created_at: 1,
      revoked_at: null,
    });
    expect(await tokens.authenticate(token)).toMatchObject({ tokenId: 't1', orgName: 'acme' });
    expect(await tokens.authenticate('not-a-token')).toBeNull();
  });
});

describe('ensureOrg', () => {
  it('returns the existing org and refuses bad names', async () => {
    const a = await ensureOrg(db, 'acme', 1);
    expect((await ensureOrg(db, 'acme', 2)).id).toBe(a.id);
    await expect(ensureOrg(db, 'bad name', 1)).rejects.toThrow(/Invalid organization name/);
  });
});
