/**
 * Repositories are found by host/owner/name in any letter case (store/repos.ts `repoNamed` compares
 * lower() of each): an index on those lower() values serves that lookup. It is not unique: a store
 * may already hold one repository connected twice in two spellings, and `repo connect` refuses a
 * second spelling from now on (app/admin/repo-admin.ts), which leaves disconnecting one of them possible.
 */
import { sql, type Migration } from 'kysely';

export const repoNameCase: Migration = {
  async up(db): Promise<void> {
    await sql`create index repos_host_owner_name_lower on repos (lower(host), lower(owner), lower(name))`.execute(db);
  },

  async down(db): Promise<void> {
    await db.schema.dropIndex('repos_host_owner_name_lower').execute();
  },
};
