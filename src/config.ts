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
 * | logFormat           | GREENLINE_LOG_FORMAT            | auto           |
 * | pollIntervalSeconds | GREENLINE_POLL_INTERVAL_SECONDS | 15             |
 * | ciMaxParallel       | GREENLINE_CI_MAX_PARALLEL       | 2              |
 * | leaseTtlSeconds     | GREENLINE_LEASE_TTL_SECONDS     | 15             |
 * | retentionDays       | GREENLINE_RETENTION_DAYS        | 30             |
 * | operatorMetricsPort | GREENLINE_OPERATOR_METRICS_PORT | off            |
 * | operatorMetricsHost | GREENLINE_OPERATOR_METRICS_HOST | 127.0.0.1      |
 * | githubAppId         | GREENLINE_GITHUB_APP_ID         | none           |
 * | githubPrivateKeyPath| GREENLINE_GITHUB_PRIVATE_KEY_PATH | none         |
 * | githubToken         | GREENLINE_GITHUB_TOKEN          | none           |
 * | githubWebhookSecret | GREENLINE_GITHUB_WEBHOOK_SECRET | none           |
 * | githubBaseUrl       | GREENLINE_GITHUB_BASE_URL       | https://api.github.com |
 * | githubDetailsUrl    | GREENLINE_GITHUB_DETAILS_URL    | none           |
 *
 * In greenline.yaml the github keys may also be written as a `github:` mapping (`github.appId`, …).
 * | webhookAllowedHosts | GREENLINE_WEBHOOK_ALLOWED_HOSTS | any (comma-separated list) |
 *
 * Relative paths (dataDir, a `sqlite:` databaseUrl, githubPrivateKeyPath, --config) are resolved once,
 * here, against the directory the command runs in: everything downstream (git, the CI runner's child
 * processes, which run in other directories) gets absolute paths.
 */
import { isAbsolute, resolve } from 'node:path';
import { readConfigFile } from './config-file.js';

export interface GreenlineConfig {
  port: number;
  host: string;
  dataDir: string;
  /** `postgres://…`, `sqlite:<path>`, or null for SQLite at `<dataDir>/greenline.db`. */
  databaseUrl: string | null;
  /** Spelling of states on the wire: the spec's UPPERCASE, or Trunk's current lowercase. */
  enumCase: 'upper' | 'lower';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Server logs (on stderr): `pretty` lines for people, `json` lines for machines, `auto` = pretty on a terminal. */
  logFormat: 'auto' | 'pretty' | 'json';
  pollIntervalSeconds: number;
  ciMaxParallel: number;
  /**
   * Length of a queue lease: the instance driving a queue renews it every third of this; when that
   * instance dies another takes its queues within this time (README "Running several instances").
   */
  leaseTtlSeconds: number;
  /** Days finished work records (effects, webhook deliveries, queue events) are kept (src/app/retention.ts). */
  retentionDays: number;
  /** Port of the operator metrics endpoint (docs/metrics.md; 0 = any free port); null = off. */
  operatorMetricsPort: number | null;
  operatorMetricsHost: string;
  /** GitHub App id (with githubPrivateKeyPath): the github forge authenticates as the App. */
  githubAppId: number | null;
  /** PEM file of the GitHub App's private key. */
  githubPrivateKeyPath: string | null;
  /** A token (PAT or other) for the github forge instead of an App. */
  githubToken: string | null;
  /** Secret of the GitHub webhook; POST /webhooks/github is served only when it is set. */
  githubWebhookSecret: string | null;
  /** GitHub REST API base; https://HOST/api/v3 for GitHub Enterprise Server. */
  githubBaseUrl: string;
  /** Details link of the status check and comments; {owner} {repo} {branch} {pr} are replaced. */
  githubDetailsUrl: string | null;
  /**
   * Hosts webhooks may be sent to (names, addresses, `*.example.com`); null = any host except
   * link-local and cloud metadata addresses, which are always refused (docs/webhooks.md).
   */
  webhookAllowedHosts: readonly string[] | null;
}

export const DEFAULT_CONFIG: Readonly<GreenlineConfig> = Object.freeze({
  port: 8080,
  host: '127.0.0.1',
  dataDir: './.greenline',
  databaseUrl: null,
  enumCase: 'upper',
  logLevel: 'info',
  logFormat: 'auto',
  pollIntervalSeconds: 15,
  ciMaxParallel: 2,
  leaseTtlSeconds: 15,
  retentionDays: 30,
  operatorMetricsPort: null,
  operatorMetricsHost: '127.0.0.1',
  githubAppId: null,
  githubPrivateKeyPath: null,
  githubToken: null,
  githubWebhookSecret: null,
  githubBaseUrl: 'https://api.github.com',
  githubDetailsUrl: null,
  webhookAllowedHosts: null,
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

/** A list of host names: a YAML list, or a comma-separated string; empty or absent = null. */
function hostList(key: Key, v: unknown): readonly string[] | null {
  if (v === null || v === undefined) return null;
  const items = typeof v === 'string' ? v.split(',') : v;
  if (!Array.isArray(items) || !items.every((h) => typeof h === 'string')) {
    throw new ConfigError(`${key} must be a list of host names (or a comma-separated string), got ${JSON.stringify(v)}`);
  }
  const hosts = items.map((h: string) => h.trim()).filter((h) => h !== '');
  for (const h of hosts) {
    if (!/^(\*\.)?[A-Za-z0-9._:[\]-]+$/.test(h)) throw new ConfigError(`${key}: ${JSON.stringify(h)} is not a host name or address`);
  }
  return hosts.length === 0 ? null : Object.freeze(hosts);
}

/** Checks every key and value of a merged configuration; returns it typed and frozen. */
export function validateConfig(input: Record<string, unknown>): Readonly<GreenlineConfig> {
  const merged = flattenGithub(input);
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
    logFormat: oneOf('logFormat', merged.logFormat, ['auto', 'pretty', 'json'] as const),
    pollIntervalSeconds: integer('pollIntervalSeconds', merged.pollIntervalSeconds, 1, 86_400),
    ciMaxParallel: integer('ciMaxParallel', merged.ciMaxParallel, 1, 256),
    leaseTtlSeconds: integer('leaseTtlSeconds', merged.leaseTtlSeconds, 1, 3_600),
    retentionDays: integer('retentionDays', merged.retentionDays, 1, 3_650),
    operatorMetricsPort: merged.operatorMetricsPort == null ? null : integer('operatorMetricsPort', merged.operatorMetricsPort, 0, 65535),
    operatorMetricsHost: text('operatorMetricsHost', merged.operatorMetricsHost),
    ...githubSettings(merged),
    webhookAllowedHosts: hostList('webhookAllowedHosts', merged.webhookAllowedHosts),
  });
}

type GithubKey = 'githubAppId' | 'githubPrivateKeyPath' | 'githubToken' | 'githubWebhookSecret' | 'githubBaseUrl' | 'githubDetailsUrl';

/** `github: { appId: 1 }` in the file → `githubAppId: 1` (other sources set the flat keys, which win). */
function flattenGithub(input: Record<string, unknown>): Record<string, unknown> {
  const { github, ...rest } = input;
  if (github === undefined || github === null) return rest;
  if (typeof github !== 'object' || Array.isArray(github)) throw new ConfigError('github must be a mapping of GitHub settings (appId, privateKeyPath, token, webhookSecret, baseUrl, detailsUrl)');
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(github as Record<string, unknown>)) {
    const flat = `github${k.charAt(0).toUpperCase()}${k.slice(1)}`;
    if (!KEYS.includes(flat as Key)) throw new ConfigError(`Unknown configuration key "github.${k}"; known: appId, privateKeyPath, token, webhookSecret, baseUrl, detailsUrl`);
    out[flat] = v;
  }
  // A flat key differing from its default (file, environment or flag) wins over the mapping.
  for (const [k, v] of Object.entries(rest)) if (k.startsWith('github') && v !== DEFAULT_CONFIG[k as Key]) out[k] = v;
  return { ...rest, ...out };
}

function optionalText(key: Key, v: unknown): string | null {
  return v === null || v === undefined ? null : text(key, v);
}

function githubSettings(m: Record<string, unknown>): Pick<GreenlineConfig, GithubKey> {
  const appId = m.githubAppId == null ? null : integer('githubAppId', m.githubAppId, 1, Number.MAX_SAFE_INTEGER);
  const privateKeyPath = optionalText('githubPrivateKeyPath', m.githubPrivateKeyPath);
  if ((appId === null) !== (privateKeyPath === null)) {
    throw new ConfigError('githubAppId and githubPrivateKeyPath go together: set both to authenticate as a GitHub App (or set githubToken instead)');
  }
  const baseUrl = text('githubBaseUrl', m.githubBaseUrl);
  if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new ConfigError(`githubBaseUrl must be an http(s) URL such as https://api.github.com or https://github.example.com/api/v3, got ${JSON.stringify(baseUrl)}`);
  return {
    githubAppId: appId, githubPrivateKeyPath: privateKeyPath,
    githubToken: optionalText('githubToken', m.githubToken),
    githubWebhookSecret: optionalText('githubWebhookSecret', m.githubWebhookSecret),
    githubBaseUrl: baseUrl.replace(/\/+$/, ''),
    githubDetailsUrl: optionalText('githubDetailsUrl', m.githubDetailsUrl),
  };
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
  const file = readConfigFile(resolve(cwd, opts.configPath ?? 'greenline.yaml'), {
    title: 'Config file', required: opts.configPath !== undefined, keys: [...KEYS, 'github'], keyLabel: 'configuration key',
    mappingHint: 'e.g. "port: 8080"', error: ConfigError,
  });
  const flags = Object.fromEntries(Object.entries(opts.flags ?? {}).filter(([, v]) => v !== undefined));
  return withAbsolutePaths(validateConfig({ ...DEFAULT_CONFIG, ...file, ...readEnv(opts.env), ...flags }), cwd);
}

/** The configuration with every file path absolute, resolved against `cwd` (an in-memory SQLite stays). */
function withAbsolutePaths(config: Readonly<GreenlineConfig>, cwd: string): Readonly<GreenlineConfig> {
  const url = config.databaseUrl;
  const sqliteFile = url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) : null;
  return Object.freeze({
    ...config,
    dataDir: resolve(cwd, config.dataDir),
    databaseUrl: sqliteFile !== null && sqliteFile !== ':memory:' && !isAbsolute(sqliteFile) ? `sqlite:${resolve(cwd, sqliteFile)}` : url,
    githubPrivateKeyPath: config.githubPrivateKeyPath === null ? null : resolve(cwd, config.githubPrivateKeyPath),
  });
}
