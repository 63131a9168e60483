/**
 * vitest globalSetup of the `postgres` project: migrates one template database per run, which the
 * test services' databases are copies of (see databases.ts), and drops them all at the end of the run.
 */
import type { TestProject } from 'vitest/node';
import { connect } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { createPgDatabase, dropPgDatabase, dropPgDatabases, pgUrl } from './pg-admin.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = await createPgDatabase('greenline_tpl');
  const db = connect({ databaseUrl: pgUrl(name), dataDir: '' });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  project.provide('pgTemplate', name);
  return async () => {
    await dropPgDatabases(`${name}_`);
    await dropPgDatabase(name);
  };
}
