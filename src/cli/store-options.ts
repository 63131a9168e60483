/**
 * Admin commands act on the server's store directly, so they take the same --data-dir,
 * --database-url and --config as `serve` (and read the same GREENLINE_* environment).
 */
import { Command } from 'commander';
import { loadConfig, type GreenlineConfig } from '../config.js';
import { openStore, type Db } from '../store/connect.js';
import type { OrgRow } from '../store/database.js';
import { findOrgById, findOrgByName, listOrgNames } from '../store/orgs.js';

export interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
  config?: string;
}

export function withStoreOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory of the server (SQLite database, git mirrors, logs; default ./.greenline, relative to the current directory)')
    .option('--database-url <url>', 'postgres://… to use PostgreSQL instead of SQLite in the data dir')
    .option('--config <file>', 'configuration file (default: greenline.yaml in the current directory, if present)');
}

export function configFrom(flags: StoreFlags & Partial<Record<keyof GreenlineConfig, unknown>>): Readonly<GreenlineConfig> {
  const { config, ...values } = flags;
  return loadConfig({ flags: values, ...(config !== undefined ? { configPath: config } : {}) });
}

/** Opens the store named by the flags (openStore), runs `work`, and closes the store. */
export async function withStore<T>(flags: StoreFlags, work: (db: Db) => Promise<T>): Promise<T> {
  const cfg = configFrom({ dataDir: flags.dataDir, databaseUrl: flags.databaseUrl, ...(flags.config ? { config: flags.config } : {}) });
  const db = await openStore({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/**
 * What the `list` admin commands need of organizations: the id to filter by for `--org NAME`
 * (undefined = every organization; an unknown name is an error), and each row's organization name.
 */
export async function orgsForListing(db: Db, name: string | undefined): Promise<{
  filter: string | undefined; nameOf: (orgId: string) => Promise<string>;
}> {
  const org = name === undefined ? undefined : await existingOrg(db, name);
  const names = new Map<string, string>();
  return {
    filter: org?.id,
    async nameOf(orgId) {
      if (!names.has(orgId)) names.set(orgId, (await findOrgById(db, orgId))?.name ?? orgId);
      return names.get(orgId)!;
    },
  };
}

/**
 * The organization named `name`; when there is none, an error naming the existing organizations
 * (a typo shows at once) followed by `instead`, what else the user may do.
 */
export async function existingOrg(db: Db, name: string, instead = ''): Promise<OrgRow> {
  const org = await findOrgByName(db, name);
  if (org) return org;
  const names = await listOrgNames(db);
  const existing = names.length === 0 ? 'there is no organization yet' : `existing organizations: ${names.join(', ')}`;
  throw new Error(`Organization ${name} does not exist (${existing})${instead ? `; ${instead}` : ''}`);
}
