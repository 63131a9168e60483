/**
 * A binding's forge-private data (RepoBinding.forgeData) through the store: the github forge's App
 * installation given at connect time is kept (in the `github_installation_id` column) and read back
 * as `{ installationId }` for that forge alone to read; data the store has no place for is refused.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectRepo } from '../../src/app/admin/repo-admin.js';
import { bindingOf } from '../../src/app/repo-binding.js';
import type { Db } from '../../src/store/connect.js';
import { findRepo } from '../../src/store/repos.js';
import { openMigrated, testDatabases } from '../helpers/databases.js';

const databases = await testDatabases();

describe.each(databases)('forge data of a binding on $name', (database) => {
  let db: Db;
  afterAll(() => database.cleanup());
  beforeEach(async () => {
    db = await openMigrated(database);
  });
  afterEach(() => db.destroy());

  it("keeps the github forge's installation given at connect time, and none when none was given", async () => {
    await connectRepo(
      db,
      { org: 'acme', slug: 'github.com/acme/web', forge: 'github', forgeData: { installationId: 4242 } },
      1,
    );
    await connectRepo(db, { org: 'acme', slug: 'github.com/acme/api', forge: 'github' }, 1);
    const web = await findRepo(db, 'github.com', 'acme', 'web');
    expect(web?.github_installation_id).toEqual(4242);
    expect(bindingOf(web!).forgeData).toEqual({ installationId: 4242 });
    expect(bindingOf((await findRepo(db, 'github.com', 'acme', 'api'))!).forgeData).toBeNull();
  });

  it('refuses forge data it has no place for, and an installation that is not a number', async () => {
    const connect = (forgeData: Record<string, unknown>) =>
      connectRepo(db, { org: 'acme', slug: 'github.com/acme/web', forge: 'github', forgeData }, 1);
    await expect(connect({ projectId: 7 })).rejects.toThrow('No place to store the forge data projectId');
    await expect(connect({ installationId: '4242' })).rejects.toThrow(
      'The forge data installationId is a number, not "4242"',
    );
    expect(await findRepo(db, 'github.com', 'acme', 'web')).toBeUndefined();
  });
});
