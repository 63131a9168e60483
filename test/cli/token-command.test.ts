/**
 * `greenline token create | list` with scopes, repositories and expiry, run in process on a SQLite
 * data dir: what it prints, what the token it creates may do, and the errors that change nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ensureOrg } from '../../src/app/admin/org-admin.js';
import { connectRepo } from '../../src/app/admin/repo-admin.js';
import { authenticateToken } from '../../src/app/admin/tokens.js';
import { EVERY_SCOPE } from '../../src/app/scopes.js';
import { parseDuration, tokenCommand } from '../../src/cli/token.js';
import { listApiTokens } from '../../src/store/api-tokens.js';
import { openStore, type Db } from '../../src/store/connect.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';

let dir: string;
let stdout: string;

beforeEach(async () => {
  dir = await makeTempDir('greenline-token-cli-');
  const db = await openStore({ dataDir: dir, databaseUrl: null });
  await ensureOrg(db, 'acme', 1);
  await connectRepo(db, { org: 'acme', slug: 'github.com/acme/web', forge: 'git', ciCommand: 'true' }, 1);
  await db.destroy();
  stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await removeTempDir(dir);
});

const token = (...args: string[]) =>
  tokenCommand()
    .exitOverride()
    .parseAsync([...args, '--data-dir', dir], { from: 'user' });

async function withDb<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openStore({ dataDir: dir, databaseUrl: null });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

describe('greenline token create', () => {
  it('makes a token of those scopes, repositories and lifetime, and says so', async () => {
    const before = Date.now();
    await token(
      'create',
      '--org',
      'acme',
      '--name',
      'ops',
      '--scopes',
      'queues:write,test_runs:report',
      '--repo',
      'GitHub.com/acme/web',
      '--expires-in',
      '12h',
    );
    expect(stdout).toMatch(
      /^Created token \S+ "ops" for organization acme: scopes read, queues:write, test_runs:report; repositories github\.com\/acme\/web; expires \d{4}-.*Z\. It is shown only this once:\ngl_/,
    );
    const secret = stdout.trimEnd().split('\n').at(-1)!;
    const ctx = await withDb((db) => authenticateToken(db, secret));
    expect([...ctx!.scopes].sort()).toEqual(['queues:write', 'read', 'test_runs:report']);
    expect(ctx!.repos).toEqual(['github.com/acme/web']);
    expect(ctx!.expiresAt! - before).toBeGreaterThanOrEqual(12 * 3_600_000);
    expect(ctx!.expiresAt! - Date.now()).toBeLessThanOrEqual(12 * 3_600_000);
  });

  it('without --scopes makes a token of every scope and says so', async () => {
    await token('create', '--org', 'acme', '--name', 'all');
    expect(stdout).toContain('every scope (no --scopes given; pass --scopes to limit it)');
    expect(stdout).toContain('every repository of the organization; never expires');
    const ctx = await withDb((db) => authenticateToken(db, stdout.trimEnd().split('\n').at(-1)!));
    expect(ctx!.scopes).toBe(EVERY_SCOPE);
  });

  it('refuses an unknown scope, a repository not connected and a malformed duration, creating nothing', async () => {
    await expect(token('create', '--org', 'acme', '--scopes', 'read,queue:write')).rejects.toThrow(
      /^Unknown scope queue:write; valid scopes: read, pull_requests:write, .*queues:write.*admin$/,
    );
    await expect(token('create', '--org', 'acme', '--repo', 'github.com/acme/api')).rejects.toThrow(
      '--repo github.com/acme/api: not connected to organization acme (its repositories: github.com/acme/web)',
    );
    await expect(token('create', '--org', 'acme', '--expires-in', '3w')).rejects.toThrow(
      '--expires-in "3w" is not a duration; give a whole number and a unit: 45s, 30m, 12h or 90d',
    );
    expect(await withDb((db) => listApiTokens(db))).toEqual([]);
  });
});

describe('greenline token list', () => {
  it('shows name, scopes, repositories, created, last used and expiry', async () => {
    await token('create', '--org', 'acme', '--name', 'viewer', '--scopes', 'read', '--repo', 'github.com/acme/web');
    await token('create', '--org', 'acme', '--name', 'all', '--expires-in', '90d');
    stdout = '';
    await token('list', '--org', 'acme');
    const [viewer, all] = stdout.trimEnd().split('\n');
    expect(viewer).toMatch(
      /^\S+ {2}acme {2}viewer {2}scopes read {2}repos github\.com\/acme\/web {2}created \S+Z {2}last used never {2}expires never {2}active$/,
    );
    expect(all).toMatch(/ {2}all {2}scopes every scope {2}repos every repository {2}.* {2}expires \S+Z {2}active$/);
  });
});

describe('durations', () => {
  it('are a whole number of seconds, minutes, hours or days', () => {
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('90d')).toBe(90 * 86_400_000);
    for (const bad of ['', '0d', '1.5h', '90', 'd', '10y', '-1d'])
      expect(() => parseDuration(bad)).toThrow(/not a duration/);
  });
});
