/**
 * The bootstrap token: created on any start where the database holds no active API token, for the
 * org `default` (created when missing), once between several instances starting together; and the
 * log line of a start that created none.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrap, ensureOrg } from '../../src/app/admin/org-admin.js';
import { connectRepo } from '../../src/app/admin/repo-admin.js';
import { authenticateToken, createApiToken } from '../../src/app/admin/tokens.js';
import { tokenHint } from '../../src/server/server.js';
import { listApiTokens, revokeApiToken } from '../../src/store/api-tokens.js';
import { connect, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { listOrgNames } from '../../src/store/orgs.js';
import { openMigrated, testDatabases } from '../helpers/databases.js';

const databases = await testDatabases();

describe.each(databases)('bootstrap on $name', (database) => {
  let db: Db;
  afterAll(() => database.cleanup());
  beforeEach(async () => {
    db = await openMigrated(database);
  });
  afterEach(() => db.destroy());

  it('creates org default and a token on a first start; later starts find the token and create none', async () => {
    const first = await bootstrap(db, 1);
    expect(first).toMatchObject({ org: 'default', token: expect.stringMatching(/^gl_/) });
    expect(await authenticateToken(db, first.token!)).toMatchObject({ orgName: 'default' });
    expect(await bootstrap(db, 2)).toEqual({ token: null, orgs: ['default'] });
    expect(await listApiTokens(db)).toHaveLength(1);
  });

  it('creates a token in org default when `repo connect` created that org before the first start', async () => {
    await connectRepo(db, { org: 'default', slug: 'github.com/acme/web', forge: 'git', remote: '/srv/web.git' }, 1);
    const orgId = (await ensureOrg(db, 'default', 1)).id;
    const boot = await bootstrap(db, 2);
    expect(await authenticateToken(db, boot.token!)).toMatchObject({ orgId, orgName: 'default' });
    expect(await listOrgNames(db)).toEqual(['default']);
  });

  it('creates org default and a token when only other orgs exist, without tokens', async () => {
    await ensureOrg(db, 'acme', 1);
    const boot = await bootstrap(db, 2);
    expect(await authenticateToken(db, boot.token!)).toMatchObject({ orgName: 'default' });
    expect(await listOrgNames(db)).toEqual(['acme', 'default']);
  });

  it('creates none while any org has an active token, and one again once every token is revoked', async () => {
    const acme = await ensureOrg(db, 'acme', 1);
    const { id } = await createApiToken(db, acme.id, 'ci', 1);
    expect(await bootstrap(db, 2)).toEqual({ token: null, orgs: ['acme'] });
    expect(await listOrgNames(db)).toEqual(['acme']);
    await revokeApiToken(db, id, 3);
    expect((await bootstrap(db, 4)).token).toMatch(/^gl_/);
  });
});

// Several instances share a database only on PostgreSQL (one SQLite data dir has one server).
describe.each(databases.filter((d) => d.name === 'postgres'))('instances starting together on $name', (database) => {
  afterAll(() => database.cleanup());

  it.each([
    { before: 'an empty database', orgs: [] as string[] },
    { before: 'org default and another org without tokens', orgs: ['default', 'acme'] },
  ])('create one token between them, on $before', async ({ orgs }) => {
    const url = await database.url();
    const setup = connect({ databaseUrl: url, dataDir: '' });
    const instances = Array.from({ length: 8 }, () => connect({ databaseUrl: url, dataDir: '' }));
    try {
      await migrateToLatest(setup);
      for (const org of orgs) await ensureOrg(setup, org, 1);
      const results = await Promise.all(instances.map((instance) => bootstrap(instance, 2)));
      expect(results.filter((r) => r.token !== null)).toHaveLength(1);
      expect(results.filter((r) => r.token === null).map((r) => 'orgs' in r && r.orgs)).toEqual(
        Array(7).fill([...new Set([...orgs, 'default'])].sort()),
      );
      expect(await listApiTokens(setup)).toHaveLength(1);
    } finally {
      await Promise.all([setup, ...instances].map((db) => db.destroy()));
    }
  });
});

describe('the log line of a start that created no token', () => {
  it("gives the token create command for the one org, on the server's store (a database URL without its password)", () => {
    expect(tokenHint(['default'], { dataDir: './.greenline', databaseUrl: null })).toBe(
      'API tokens exist, so no bootstrap token is printed; create another with: greenline token create --org default --name <label> --data-dir ./.greenline',
    );
    expect(tokenHint(['acme', 'default'], { dataDir: './d', databaseUrl: 'postgres://gl:secret@db:5432/gl' })).toBe(
      'API tokens exist, so no bootstrap token is printed; create another with: greenline token create --org <org> --name <label> ' +
        '--database-url postgres://gl:***@db:5432/gl (organizations: acme, default)',
    );
  });
});
