/**
 * Server configuration: defaults ← greenline.yaml (optional) ← GREENLINE_* environment ← flags,
 * merged in one line, validated once, frozen. Unknown keys are errors naming the key.
 *
 * | key                 | env                             | default        |
 * |---------------------|---------------------------------|----------------|
 * | port                | GREENLINE_PORT                  | 8080           |
 * | host                | GREENLINE_HOST                  | 127.0.0.1      |
 * | dataDir             | GREENLINE_DATA_DIR              | ./.greenline   |
 * | databaseUrl         | GREENLINE_DATABASE_URL          | SQLite at dataDir/greenline.db |
 * | enumCase            | GREENLINE_ENUM_CASE             | upper          |
 * | logLevel            | GREENLINE_LOG_LEVEL             | info           |
 * | pollIntervalSeconds | GREENLINE_POLL_INTERVAL_SECONDS | 15             |
 * | ciMaxParallel       | GREENLINE_CI_MAX_PARALLEL       | 2              |
 * | leaseTtlSeconds     | GREENLINE_LEASE_TTL_SECONDS     | 15             |
 * | operatorMetricsPort | GREENLINE_OPERATOR_METRICS_PORT | off            |
 * | operatorMetricsHost | GREENLINE_OPERATOR_METRICS_HOST | 127.0.0.1      |
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface GreenlineConfig {
  port: number;
  host: string;
  dataDir: string;
  /** `postgres://…`, `sqlite:<path>`, or null for SQLite at `<dataDir>/greenline.db`. */
  databaseUrl: string | null;
  /** Spelling of states on the wire: the spec's UPPERCASE, or Trunk's current lowercase. */
  enumCase: 'upper' | 'lower';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  pollIntervalSeconds: number;
  ciMaxParallel: number;
  /**
   * Length of a queue lease: the instance driving a queue renews it every third of this; when that
   * instance dies another takes its queues within this time (README "Running several instances").
   */
  leaseTtlSeconds: number;
  /** Port of the operator metrics endpoint (docs/metrics.md; 0 = any free port); null = off. */
  operatorMetricsPort: number | null;
  operatorMetricsHost: string;
}

export const DEFAULT_CONFIG: Readonly<GreenlineConfig> = Object.freeze({
  port: 8080,
  host: '127.0.0.1',
  dataDir: './.greenline',
  databaseUrl: null,
  enumCase: 'upper',
  logLevel: 'info',
  pollIntervalSeconds: 15,
  ciMaxParallel: 2,
  leaseTtlSeconds: 15,
  operatorMetricsPort: null,
  operatorMetricsHost: '127.0.0.1',
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Key = keyof GreenlineConfig;
const KEYS = Object.keys(DEFAULT_CONFIG) as Key[];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const envName = (k: Key): string => `GREENLINE_${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
/**
 * GREENLINE_* variables that are not server configuration: those the built-in CI runner sets for the
 * commands it runs, and the client commands' server address and token (docs/cli.md).
 */
const NOT_SERVER_ENV = new Set([
  'GREENLINE_TEST_RUN_ID', 'GREENLINE_TARGET_BRANCH', 'GREENLINE_PR_NUMBERS', 'GREENLINE_TEST_SHA', 'GREENLINE_TEST_BRANCH',
  'GREENLINE_URL', 'GREENLINE_TOKEN',
]);

/** The configuration found in GREENLINE_* variables (pure: reads only `env`). */
export function readEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<Key, string>> {
  const byName = new Map(KEYS.map((k) => [envName(k), k]));
  const out: Partial<Record<Key, string>> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GREENLINE_') || NOT_SERVER_ENV.has(name) || value === undefined) continue;
    const key = byName.get(name);
    if (!key) throw new ConfigError(`Unknown environment variable ${name}; known: ${[...byName.keys()].join(', ')}`);
    out[key] = value;
  }
  return out;
}

/** The configuration in a YAML file; a missing optional file is empty. */
export function readConfigFile(path: string, required: boolean): Record<string, unknown> {
  if (!existsSync(path)) {
    if (required) throw new ConfigError(`Config file ${path} does not exist`);
    return {};
  }
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Config file ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`Config file ${path} must be a mapping of keys to values`);
  return doc as Record<string, unknown>;
}

function integer(key: Key, v: unknown, min: number, max: number): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (!Number.isInteger(n) || (n as number) < min || (n as number) > max) {
    throw new ConfigError(`${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return n as number;
}

function text(key: Key, v: unknown): string {
  if (typeof v !== 'string' || v === '') throw new ConfigError(`${key} must be a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

function oneOf<T extends string>(key: Key, v: unknown, allowed: readonly T[]): T {
  const s = typeof v === 'string' ? v.toLowerCase() : v;
  if (!allowed.includes(s as T)) throw new ConfigError(`${key} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return s as T;
}

/** Checks every key and value of a merged configuration; returns it typed and frozen. */
export function validateConfig(merged: Record<string, unknown>): Readonly<GreenlineConfig> {
  for (const key of Object.keys(merged)) {
    if (!KEYS.includes(key as Key)) throw new ConfigError(`Unknown configuration key "${key}"; known: ${KEYS.join(', ')}`);
  }
  const url = merged.databaseUrl ?? null;
  if (url !== null && (typeof url !== 'string' || !/^(postgres(ql)?:\/\/|sqlite:)/.test(url))) {
    throw new ConfigError(`databaseUrl must start with postgres://, postgresql:// or sqlite:, got ${JSON.stringify(url)}`);
  }
  return Object.freeze({
    port: integer('port', merged.port, 0, 65535),
    host: text('host', merged.host),
    dataDir: text('dataDir', merged.dataDir),
    databaseUrl: url as string | null,
    enumCase: oneOf('enumCase', merged.enumCase, ['upper', 'lower'] as const),
    logLevel: oneOf('logLevel', merged.logLevel, LOG_LEVELS) as GreenlineConfig['logLevel'],
    pollIntervalSeconds: integer('pollIntervalSeconds', merged.pollIntervalSeconds, 1, 86_400),
    ciMaxParallel: integer('ciMaxParallel', merged.ciMaxParallel, 1, 256),
    leaseTtlSeconds: integer('leaseTtlSeconds', merged.leaseTtlSeconds, 1, 3_600),
    operatorMetricsPort: merged.operatorMetricsPort == null ? null : integer('operatorMetricsPort', merged.operatorMetricsPort, 0, 65535),
    operatorMetricsHost: text('operatorMetricsHost', merged.operatorMetricsHost),
  });
}

export interface LoadConfigOptions {
  /** Values from command-line flags (undefined = not given). */
  flags?: Partial<Record<Key, unknown>>;
  env?: NodeJS.ProcessEnv;
  /** An explicit config file (must exist); otherwise `greenline.yaml` in `cwd` when present. */
  configPath?: string;
  cwd?: string;
}

export function loadConfig(opts: LoadConfigOptions = {}): Readonly<GreenlineConfig> {
  const file = readConfigFile(opts.configPath ?? join(opts.cwd ?? process.cwd(), 'greenline.yaml'), opts.configPath !== undefined);
  const flags = Object.fromEntries(Object.entries(opts.flags ?? {}).filter(([, v]) => v !== undefined));
  return validateConfig({ ...DEFAULT_CONFIG, ...file, ...readEnv(opts.env), ...flags });
}
