/**
 * What an API token may do (app/scopes.ts): its scopes and the repositories it is limited to (JSON
 * lists; NULL = every scope, every repository of its organization: tokens made before keep what
 * they could do), when it expires (NULL = never) and when it was last used (written at most once a
 * minute per token).
 */
import type { Migration } from 'kysely';

const COLUMNS = [
  ['scopes', 'text'],
  ['repos', 'text'],
  ['expires_at', 'bigint'],
  ['last_used_at', 'bigint'],
] as const;

export const tokenScopes: Migration = {
  async up(db): Promise<void> {
    for (const [column, type] of COLUMNS) await db.schema.alterTable('api_tokens').addColumn(column, type).execute();
  },

  async down(db): Promise<void> {
    for (const [column] of COLUMNS) await db.schema.alterTable('api_tokens').dropColumn(column).execute();
  },
};
