/**
 * Admin commands act on the server's store directly, so they take the same --data-dir,
 * --database-url and --config as `serve` (and read the same GREENLINE_* environment). Each says on
 * stderr which database it used, and warns when it has just created it empty: run from another
 * directory than the server's, the default ./.greenline is not the server's.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type Command, Option } from 'commander';
import { KindGuard, type TSchema } from '@sinclair/typebox';
import { loadConfig, type GreenlineConfig } from '../config/config.js';
import { settingOf, type ConfigKey } from '../config/schema.js';
import { redact } from '../lib/redact.js';
import { openStore, type Db } from '../store/connect.js';
import type { OrgRow } from '../store/database.js';
import { findOrgById, findOrgByName, listOrgNames } from '../store/orgs.js';
import { UrlPolicy } from '../delivery/url-policy.js';

export interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
  config?: string;
}

export function withStoreOptions(cmd: Command): Command {
  return withSettingOptions(cmd, ['dataDir', 'databaseUrl']).option(
    '--config <file>',
    'configuration file (default: greenline.yaml in the current directory, if present)',
  );
}

/** The flag of a server setting as config-schema.ts describes it (a setting of a few names offers them as choices). */
function settingOption(key: ConfigKey): Option {
  const { flag, description } = settingOf(key);
  if (flag === undefined) throw new Error(`the setting ${key} has no flag`);
  const option = new Option(flag, description);
  const schema: TSchema = settingOf(key);
  const names =
    KindGuard.IsUnion(schema) && schema.anyOf.every((m) => KindGuard.IsLiteral(m))
      ? schema.anyOf.map((m) => String(m.const))
      : null;
  return names ? option.choices(names) : option;
}

/** Adds the flags of these server settings to a command. */
export function withSettingOptions(cmd: Command, keys: readonly ConfigKey[]): Command {
  for (const key of keys) cmd.addOption(settingOption(key));
  return cmd;
}

/** The values the flags of these settings were given (commander's names for them → the settings' keys). */
export function settingFlags(
  flags: Record<string, unknown>,
  keys: readonly ConfigKey[],
): Partial<Record<ConfigKey, unknown>> {
  return Object.fromEntries(keys.map((k) => [k, flags[settingOption(k).attributeName()]]));
}

export function configFrom(
  flags: { config?: string } & Partial<Record<ConfigKey, unknown>>,
): Readonly<GreenlineConfig> {
  const { config, ...values } = flags;
  return loadConfig({ flags: values, ...(config !== undefined ? { configPath: config } : {}) });
}

/** A path as the user would type it here: `./.greenline` under the current directory, else absolute. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') || rel.startsWith('/') ? path : `./${rel}`;
}

/**
 * What an admin command says about the store it is about to open (before opening it, which creates
 * a SQLite file and its directory): the line naming it, and a warning when it does not exist yet.
 */
export function storeNotice(
  cfg: Pick<GreenlineConfig, 'databaseUrl' | 'dataDir'>,
  cwd = process.cwd(),
): { using: string; created: string | null } {
  const url = cfg.databaseUrl;
  if (url && !url.startsWith('sqlite:')) return { using: `Using the database ${redact(url)}.`, created: null };
  if (url) {
    const file = url.slice('sqlite:'.length);
    return {
      using: `Using the database ${shown(file, cwd)}.`,
      created:
        file === ':memory:' || existsSync(file)
          ? null
          : `created a new empty database ${shown(file, cwd)}: is this the database the server uses? pass --database-url`,
    };
  }
  const file = join(cfg.dataDir, 'greenline.db');
  const dir = shown(cfg.dataDir, cwd);
  return {
    using: `Using the data directory ${dir} (database ${shown(file, cwd)}).`,
    created: !existsSync(cfg.dataDir)
      ? `created a new empty data directory ${dir}: is this the directory the server uses? pass --data-dir`
      : !existsSync(file)
        ? `created a new empty database in ${dir}: is this the directory the server uses? pass --data-dir`
        : null,
  };
}

/**
 * Opens the store named by the flags (openStore), says which one on stderr (storeNotice), runs
 * `work`, and closes the store.
 */
export async function withStore<T>(flags: StoreFlags, work: (db: Db) => Promise<T>): Promise<T> {
  const cfg = configFrom({
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    ...(flags.config ? { config: flags.config } : {}),
  });
  const notice = storeNotice(cfg);
  const db = await openStore({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
  process.stderr.write(`${notice.using}\n`);
  if (notice.created) process.stderr.write(`warning: ${notice.created}\n`);
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
export async function orgsForListing(
  db: Db,
  name: string | undefined,
): Promise<{
  filter: string | undefined;
  nameOf: (orgId: string) => Promise<string>;
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

/**
 * `PARENT NAME <id>` acting on one row (a webhook subscription, a chat channel), with the store's
 * options; its help shows an example with `exampleFlags`.
 */
export function idCommand(
  parent: Command,
  name: string,
  description: string,
  idMeaning: string,
  exampleFlags = '',
): Command {
  return withStoreOptions(parent.command(name))
    .description(description)
    .argument('<id>', idMeaning)
    .addHelpText(
      'after',
      `
Example:
  $ greenline ${parent.name()} ${name} 6f1c2a7e-0b6d-4f5e-9a1c-3d2b8e7f6a5c${exampleFlags ? ` ${exampleFlags}` : ''}`,
    );
}

/** Where the server may send webhooks and chat messages: the allow-list of its configuration. */
export function urlPolicyOf(flags: StoreFlags): UrlPolicy {
  const cfg = configFrom({
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    ...(flags.config ? { config: flags.config } : {}),
  });
  return new UrlPolicy(cfg.webhookAllowedHosts);
}
