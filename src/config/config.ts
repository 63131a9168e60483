/**
 * Server configuration: defaults ← settings the forges keep in the data directory (a forge's
 * storedSettingsFile) ← greenline.yaml (optional) ← GREENLINE_* environment ← flags.
 * Every setting is described once in schema.ts, the forges' in their definitions (type, bounds,
 * default, environment variable, flag; docs/configuration.md is generated from them). Each layer is
 * read into the flat keys of the schema on its own (a forge's mapping in greenline.yaml, such as
 * `github:`, too), then the layers are merged, and the result validated once and frozen. Unknown keys
 * are errors naming the key.
 *
 * Relative paths (dataDir, a `sqlite:` databaseUrl, the settings marked `path`, --config) are resolved
 * once, here, against the directory the command runs in: everything downstream (git, the CI runner's
 * child processes, which run in other directories) gets absolute paths.
 */
import { isAbsolute, resolve } from 'node:path';
import { KindGuard, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  CLIENT_ENV_NAMES,
  CONFIG_KEYS,
  DEFAULT_CONFIG,
  SETTINGS_BLOCKS,
  settingOf,
  type ConfigKey,
  type GreenlineConfig,
  type Setting,
} from './schema.js';
import { readConfigFile } from './file.js';
import { ForgeSettingsError } from '../forge/definition.js';
import { FORGES } from '../forges.js';
import { shownValue } from '../lib/redact.js';

export { DEFAULT_CONFIG, type GreenlineConfig } from './schema.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Key = ConfigKey;
type Layer = Partial<Record<Key, unknown>>;

/**
 * GREENLINE_* variables that are not server configuration: those the built-in CI runner sets for the
 * commands it runs, and the client commands' server address and token (docs/cli.md).
 */
const NOT_SERVER_ENV = new Set([
  'GREENLINE_TEST_RUN_ID',
  'GREENLINE_TARGET_BRANCH',
  'GREENLINE_PR_NUMBERS',
  'GREENLINE_TEST_SHA',
  'GREENLINE_TEST_BRANCH',
  'GREENLINE_CI_TAG',
  ...CLIENT_ENV_NAMES,
]);

/** The configuration found in GREENLINE_* variables (pure: reads only `env`). */
export function readEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<Key, string>> {
  const byName = new Map(CONFIG_KEYS.map((k) => [settingOf(k).env, k]));
  const out: Partial<Record<Key, string>> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GREENLINE_') || NOT_SERVER_ENV.has(name) || value === undefined) continue;
    const key = byName.get(name);
    if (!key) throw new ConfigError(`Unknown environment variable ${name}; known: ${[...byName.keys()].join(', ')}`);
    out[key] = value;
  }
  return out;
}

/**
 * The settings of greenline.yaml by their flat keys: `github: { appId: 1 }` → `githubAppId: 1` (a
 * forge's mapping, SETTINGS_BLOCKS). A flat key written in the same file besides the mapping wins over
 * it. Unknown keys are errors.
 */
function fileLayer(doc: Record<string, unknown>): Layer {
  const nested: Layer = {};
  const flat: Layer = {};
  for (const [key, value] of Object.entries(doc)) {
    const block = SETTINGS_BLOCKS.get(key); // readConfigFile refused unknown top-level keys
    if (!block) flat[key as Key] = value;
    else if (value !== undefined && value !== null) Object.assign(nested, blockLayer(key, block, value));
  }
  return { ...nested, ...flat };
}

/** A forge's mapping in greenline.yaml by the flat keys it stands for. */
function blockLayer(name: string, block: NonNullable<ReturnType<typeof SETTINGS_BLOCKS.get>>, value: unknown): Layer {
  const known = [...block.keys.keys()].join(', ');
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(`${name} must be a mapping of ${block.of} (${known})`);
  const nested: Layer = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = block.keys.get(k);
    if (!key) throw new ConfigError(`Unknown configuration key "${name}.${k}"; known: ${known}`);
    nested[key] = v;
  }
  return nested;
}

/** The member of a nullable setting that is not null. */
function nonNull(s: TSchema): { schema: TSchema; nullable: boolean } {
  if (KindGuard.IsUnion(s) && s.anyOf.some((m) => KindGuard.IsNull(m))) {
    return { schema: s.anyOf.find((m) => !KindGuard.IsNull(m))!, nullable: true };
  }
  return { schema: s, nullable: false };
}

/** Text from the environment and flags to the setting's type: numbers, lower-case names, comma-separated lists. */
function coerce(schema: TSchema, v: unknown): unknown {
  if (KindGuard.IsInteger(schema)) return typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (KindGuard.IsUnion(schema)) return typeof v === 'string' ? v.toLowerCase() : v;
  if (KindGuard.IsArray(schema)) {
    const items = typeof v === 'string' ? v.split(',') : v;
    return Array.isArray(items) && items.every((h) => typeof h === 'string')
      ? items.map((h) => h.trim()).filter((h) => h !== '')
      : v;
  }
  return v;
}

/** What is wrong with `raw` as the value of `key`, in words. */
function problem(key: Key, s: Setting, schema: TSchema, raw: unknown, v: unknown): string {
  const got = `got ${shownValue(raw, s.secret === true)}`;
  if (KindGuard.IsInteger(schema))
    return `${key} must be an integer from ${schema.minimum} to ${schema.maximum}, ${got}`;
  if (KindGuard.IsUnion(schema)) return `${key} must be one of ${schema.anyOf.map((m) => m.const).join(', ')}, ${got}`;
  if (KindGuard.IsArray(schema)) {
    const bad = Array.isArray(v) ? v.find((item) => !Value.Check(schema.items, item)) : undefined;
    return bad === undefined
      ? `${key} must be a list (or a comma-separated string), ${got}`
      : `${key}: ${JSON.stringify(bad)} must ${s.mustBe}`;
  }
  return `${key} must ${s.mustBe ?? 'be a non-empty string'}, ${got}`;
}

/** One setting's value, typed and checked against its schema. */
function settingValue(key: Key, raw: unknown): unknown {
  const s = settingOf(key);
  const { schema, nullable } = nonNull(s);
  if (nullable && (raw === null || raw === undefined)) return null;
  const v = coerce(schema, raw);
  if (nullable && Array.isArray(v) && v.length === 0) return null;
  if (!Value.Check(schema, v)) throw new ConfigError(problem(key, s, schema, raw, v));
  return Array.isArray(v) ? Object.freeze(v) : v;
}

/** Checks every key and value of a merged configuration; returns it typed and frozen. */
export function validateConfig(input: Layer): Readonly<GreenlineConfig> {
  for (const key of Object.keys(input)) {
    if (!CONFIG_KEYS.includes(key as Key))
      throw new ConfigError(`Unknown configuration key "${key}"; known: ${CONFIG_KEYS.join(', ')}`);
  }
  const config = Object.fromEntries(CONFIG_KEYS.map((k) => [k, settingValue(k, input[k])])) as GreenlineConfig;
  for (const forge of FORGES) {
    try {
      forge.checkSettings?.(config);
    } catch (err) {
      throw err instanceof ForgeSettingsError ? new ConfigError(err.message) : err;
    }
  }
  const trimmed = CONFIG_KEYS.filter((k) => settingOf(k).trimSlashes).map((k) => {
    const url = config[k] as string | null;
    return [k, url?.replace(/\/+$/, '') ?? null];
  });
  return Object.freeze({ ...config, ...Object.fromEntries(trimmed) });
}

export interface LoadConfigOptions {
  /** Values from command-line flags (undefined = not given). */
  flags?: Partial<Record<Key, unknown>>;
  env?: NodeJS.ProcessEnv;
  /** An explicit config file (must exist); otherwise `greenline.yaml` in `cwd` when present. */
  configPath?: string;
  /** The directory relative paths are resolved against (default: the process's current directory). */
  cwd?: string;
}

export function loadConfig(opts: LoadConfigOptions = {}): Readonly<GreenlineConfig> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const file = fileLayer(
    readConfigFile(resolve(cwd, opts.configPath ?? 'greenline.yaml'), {
      title: 'Config file',
      required: opts.configPath !== undefined,
      keys: [...CONFIG_KEYS, ...SETTINGS_BLOCKS.keys()],
      keyLabel: 'configuration key',
      mappingHint: 'e.g. "port: 8080"',
      error: ConfigError,
    }),
  );
  const flags = Object.fromEntries(Object.entries(opts.flags ?? {}).filter(([, v]) => v !== undefined));
  const given = { ...file, ...readEnv(opts.env), ...flags };
  const dataDir = typeof given.dataDir === 'string' ? given.dataDir : DEFAULT_CONFIG.dataDir;
  return withAbsolutePaths(validateConfig({ ...DEFAULT_CONFIG, ...storedLayer(resolve(cwd, dataDir)), ...given }), cwd);
}

/**
 * The settings the forges keep in the data directory (a forge's storedSettingsFile: its mapping's
 * short names, paths relative to the data directory), beneath everything given.
 */
function storedLayer(dataDir: string): Layer {
  const layers = FORGES.flatMap(({ storedSettingsFile: name, settingsBlock }) => {
    const block = settingsBlock && SETTINGS_BLOCKS.get(settingsBlock.key);
    if (!name || !block) return [];
    const path = resolve(dataDir, name);
    const doc = readConfigFile(path, {
      title: 'Settings file',
      required: false,
      keys: [...block.keys.keys()],
      keyLabel: `${settingsBlock.of} key`,
      mappingHint: 'as greenline wrote it',
      error: ConfigError,
    });
    const layer = blockLayer(path, block, doc);
    for (const key of Object.keys(layer) as Key[])
      if (settingOf(key).path && typeof layer[key] === 'string') layer[key] = resolve(dataDir, layer[key]);
    return [layer];
  });
  return Object.assign({}, ...layers);
}

/** The configuration with every file path absolute, resolved against `cwd` (an in-memory SQLite stays). */
function withAbsolutePaths(config: Readonly<GreenlineConfig>, cwd: string): Readonly<GreenlineConfig> {
  const url = config.databaseUrl;
  const sqliteFile = url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) : null;
  const paths = CONFIG_KEYS.filter((k) => settingOf(k).path).map((k) => {
    const path = config[k] as string | null;
    return [k, path === null ? null : resolve(cwd, path)];
  });
  return Object.freeze({
    ...config,
    ...Object.fromEntries(paths),
    dataDir: resolve(cwd, config.dataDir),
    databaseUrl:
      sqliteFile !== null && sqliteFile !== ':memory:' && !isAbsolute(sqliteFile)
        ? `sqlite:${resolve(cwd, sqliteFile)}`
        : url,
  });
}
