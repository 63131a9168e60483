/**
 * The server's settings, each described once: type and bounds, default, environment variable, flag,
 * the default as the configuration reference says it, and what it means. The type `GreenlineConfig`,
 * the defaults, the names read from the environment, the flags of `serve` and of the admin commands,
 * the validation (config.ts) and docs/configuration.md (`npm run docs:config`,
 * scripts/configuration-doc.ts) are built from it.
 */
import { Type, type Static, type TObject, type TOptional, type TSchema, type TString } from '@sinclair/typebox';
import { DEFAULT_FORGE_REQUEST_TIMEOUT_MS } from '../forge/forge-http.js';
import { FORGE_SETTINGS, FORGES } from '../forges.js';
import { nullable, oneOf, type Setting, setting } from '../lib/settings.js';

export type { Setting, SettingAnnotations } from '../lib/settings.js';

/** The server's own settings, before the forges' (src/forges.ts). */
const SERVER_SETTINGS = {
  port: setting(Type.Integer({ minimum: 0, maximum: 65535 }), {
    default: 8080,
    env: 'GREENLINE_PORT',
    flag: '--port <port>',
    description: 'TCP port to listen on (default 8080; 0 = any free port)',
  }),
  host: setting(Type.String({ minLength: 1 }), {
    default: '127.0.0.1',
    env: 'GREENLINE_HOST',
    flag: '--host <host>',
    description: 'address to listen on (default 127.0.0.1)',
  }),
  dataDir: setting(Type.String({ minLength: 1 }), {
    default: './.greenline',
    env: 'GREENLINE_DATA_DIR',
    flag: '--data-dir <dir>',
    description:
      'data directory of the server (SQLite database, git mirrors, logs; default ./.greenline, relative to the current directory)',
  }),
  /** `postgres://…`, `sqlite:<path>`, or null for SQLite at `<dataDir>/greenline.db`. */
  databaseUrl: setting(nullable(Type.String({ pattern: '^(postgres(ql)?://|sqlite:)' })), {
    default: null,
    env: 'GREENLINE_DATABASE_URL',
    flag: '--database-url <url>',
    defaultText: 'SQLite at `<dataDir>/greenline.db`',
    description: 'postgres://… to use PostgreSQL instead of SQLite in the data dir',
    mustBe: 'start with postgres://, postgresql:// or sqlite:',
  }),
  databaseStartupWaitSeconds: setting(Type.Integer({ minimum: 0, maximum: 3_600 }), {
    default: 60,
    env: 'GREENLINE_DATABASE_STARTUP_WAIT_SECONDS',
    flag: '--database-startup-wait <seconds>',
    description:
      'how long `serve` keeps trying, once a second, a PostgreSQL server that refuses connections, is not in DNS yet or is starting up (a database container started beside greenline) before it gives up (default 60; 0: one try)',
  }),
  /** Spelling of states on the wire: the spec's UPPERCASE, or Trunk's current lowercase. */
  enumCase: setting(oneOf(['upper', 'lower']), {
    default: 'upper',
    env: 'GREENLINE_ENUM_CASE',
    flag: '--enum-case <case>',
    description: 'spelling of states on the wire',
  }),
  logLevel: setting(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), {
    default: 'info',
    env: 'GREENLINE_LOG_LEVEL',
    flag: '--log-level <level>',
    description: 'log level',
  }),
  /** Server logs (on stderr): `pretty` lines for people, `json` lines for machines, `auto` = pretty on a terminal. */
  logFormat: setting(oneOf(['auto', 'pretty', 'json']), {
    default: 'auto',
    env: 'GREENLINE_LOG_FORMAT',
    flag: '--log-format <format>',
    description:
      'logs on stderr: pretty lines, JSON lines, or auto (pretty on a terminal, JSON otherwise; the default)',
  }),
  pollIntervalSeconds: setting(Type.Integer({ minimum: 1, maximum: 86_400 }), {
    default: 15,
    env: 'GREENLINE_POLL_INTERVAL_SECONDS',
    flag: '--poll-interval <seconds>',
    description:
      'how often to read target branches and queued PRs from the forge (default 15); an idle queue (nothing moved, no PR tested) backs off up to 8 times it until something changes it or a push notification arrives (docs/git-forge.md); with GitHub webhooks, the shortest wait of the safety-net reads, which back off up to 20 times it',
  }),
  /** The deadline of every HTTP request greenline sends a forge (src/forge/forge-http.ts). */
  forgeRequestTimeoutSeconds: setting(Type.Integer({ minimum: 1, maximum: 3_600 }), {
    default: DEFAULT_FORGE_REQUEST_TIMEOUT_MS / 1000,
    env: 'GREENLINE_FORGE_REQUEST_TIMEOUT_SECONDS',
    flag: '--forge-request-timeout <seconds>',
    description:
      "how long greenline waits for a forge's answer to each request (GitHub, Gitea, Forgejo) before it gives up on it; the work that needed it is tried again later (default 30)",
  }),
  gitSigningKey: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GIT_SIGNING_KEY',
    flag: '--git-signing-key <key>',
    defaultText: 'none: commits are not signed',
    description:
      "signs every commit greenline writes (test commits, and the merge, squash and rebase commits it lands on the git and gitea forges) with git's own signing: with gitSigningFormat ssh the path of a private key file (or of a public key whose private key ssh-agent holds), with openpgp a key id of the gpg keyring of the user greenline runs as; `serve` refuses to start when git cannot sign with it",
  }),
  gitSigningFormat: setting(oneOf(['ssh', 'openpgp']), {
    default: 'ssh',
    env: 'GREENLINE_GIT_SIGNING_FORMAT',
    flag: '--git-signing-format <format>',
    description:
      'the kind of gitSigningKey: ssh (the default; the same commit signs the same way each time) or openpgp (gpg; a signature carries its time)',
  }),
  ciMaxParallel: setting(Type.Integer({ minimum: 1, maximum: 256 }), {
    default: 2,
    env: 'GREENLINE_CI_MAX_PARALLEL',
    flag: '--ci-max-parallel <n>',
    description:
      "how many built-in CI commands run at once for the queues' test runs (default 2); try builds have as many runner slots again, of their own",
  }),
  /**
   * Length of a queue lease: the instance driving a queue renews it every third of this; when that
   * instance dies another takes its queues within this time (docs/instances.md).
   */
  leaseTtlSeconds: setting(Type.Integer({ minimum: 1, maximum: 3_600 }), {
    default: 15,
    env: 'GREENLINE_LEASE_TTL_SECONDS',
    flag: '--lease-ttl <seconds>',
    description: 'length of a queue lease: when an instance dies, another takes its queues over within it (default 15)',
  }),
  /** Days finished work records (effects, webhook deliveries, queue events, audit log entries) are kept (src/app/cluster/retention.ts). */
  retentionDays: setting(Type.Integer({ minimum: 1, maximum: 3_650 }), {
    default: 30,
    env: 'GREENLINE_RETENTION_DAYS',
    flag: '--retention-days <days>',
    description:
      'days finished work records (effects, webhook deliveries, queue events, audit log entries) are kept (default 30)',
  }),
  /** Requests per second an organization may send to the v2 API (docs/api-v2.md, "Request limits"). */
  v2RateLimit: setting(Type.Integer({ minimum: 1, maximum: 1_000_000 }), {
    default: 100,
    env: 'GREENLINE_V2_RATE_LIMIT',
    flag: '--v2-rate-limit <n>',
    description: 'requests per second per organization to the v2 API; more get 429 (default 100)',
  }),
  /** Requests per second an organization may send to the v2 metrics endpoints. */
  v2MetricsRateLimit: setting(Type.Integer({ minimum: 1, maximum: 1_000_000 }), {
    default: 5,
    env: 'GREENLINE_V2_METRICS_RATE_LIMIT',
    flag: '--v2-metrics-rate-limit <n>',
    description: 'requests per second per organization to the v2 metrics endpoints (default 5)',
  }),
  operatorMetricsPort: setting(nullable(Type.Integer({ minimum: 0, maximum: 65535 })), {
    default: null,
    env: 'GREENLINE_OPERATOR_METRICS_PORT',
    description: 'port of the operator metrics endpoint `GET /metrics` (process, event loop, HTTP latency; no token)',
    defaultText: 'off (`0` = any free port)',
  }),
  operatorMetricsHost: setting(Type.String({ minLength: 1 }), {
    default: '127.0.0.1',
    env: 'GREENLINE_OPERATOR_METRICS_HOST',
    description: 'address the operator metrics endpoint listens on',
  }),
};

/** The server's own settings after the forges'. */
const MORE_SERVER_SETTINGS = {
  /** CI identity (docs/ci-identity.md): whose OIDC ID tokens are accepted where an API token goes. */
  oidcIssuer: setting(Type.String({ pattern: '^(https?://[^/].*)?$' }), {
    default: 'https://token.actions.githubusercontent.com',
    env: 'GREENLINE_OIDC_ISSUER',
    description:
      "issuer (`iss`) of the OIDC ID tokens a CI job may present instead of an API token, to upload impacted targets and report statuses for the repository the token names; GitHub Actions' by default; empty: none accepted",
    mustBe: 'be an http(s) URL such as https://token.actions.githubusercontent.com, or empty to accept no ID token',
  }),
  oidcAudience: setting(Type.String({ minLength: 1 }), {
    default: 'greenline',
    env: 'GREENLINE_OIDC_AUDIENCE',
    description: 'audience (`aud`) an OIDC ID token must be issued for: the CI job requests its token for it',
  }),
  oidcJwksUrl: setting(nullable(Type.String({ pattern: '^https?://[^/]' })), {
    default: null,
    env: 'GREENLINE_OIDC_JWKS_URL',
    description: "where the issuer's signing keys (JSON Web Key Set) are read, to check OIDC ID tokens",
    defaultText: '`<oidcIssuer>/.well-known/jwks`',
    mustBe: 'be an http(s) URL such as https://token.actions.githubusercontent.com/.well-known/jwks',
  }),
  /**
   * The server's address as people reach it (e.g. https://greenline.example.com): chat notifications
   * link to the PR's dashboard page under it; null = no dashboard link.
   */
  publicUrl: setting(nullable(Type.String({ pattern: '^https?://[^/]' })), {
    default: null,
    env: 'GREENLINE_PUBLIC_URL',
    flag: '--public-url <url>',
    description: "the server's address as people reach it, for dashboard links in chat notifications",
    defaultText: 'none (notifications have no dashboard link)',
    mustBe: 'be an http(s) URL such as https://greenline.example.com',
  }),
  /** null = any host except link-local and cloud metadata addresses, which are always refused (docs/webhooks.md). */
  webhookAllowedHosts: setting(nullable(Type.Array(Type.String({ pattern: '^(\\*\\.)?[A-Za-z0-9._:[\\]-]+$' }))), {
    default: null,
    env: 'GREENLINE_WEBHOOK_ALLOWED_HOSTS',
    description: 'hosts webhooks and chat notifications may be sent to (names, addresses, `*.example.com`)',
    defaultText: 'any host (comma-separated list or YAML list)',
    mustBe: 'be a host name or address',
  }),
};

/** Every setting: the server's, with each forge's own (in the list's order) before the last few. */
export const ServerConfigSchema = Type.Object({ ...SERVER_SETTINGS, ...FORGE_SETTINGS, ...MORE_SERVER_SETTINGS });

/** The settings of a server, as `loadConfig` returns them (paths absolute). */
export type GreenlineConfig = Static<typeof ServerConfigSchema>;
export type ConfigKey = keyof GreenlineConfig;

export const CONFIG_KEYS = Object.keys(ServerConfigSchema.properties) as ConfigKey[];

/** The schema of one setting with its annotations. */
export const settingOf = (key: ConfigKey): Setting => ServerConfigSchema.properties[key] as Setting;

export const DEFAULT_CONFIG: Readonly<GreenlineConfig> = Object.freeze(
  Object.fromEntries(CONFIG_KEYS.map((k) => [k, settingOf(k).default])) as GreenlineConfig,
);

/**
 * The settings a forge lets greenline.yaml group in a mapping (`github: { appId: 1 }` is
 * `githubAppId: 1`): by the mapping's key, how messages call its contents and its keys by their name
 * in it (`appId` → `githubAppId`).
 */
export const SETTINGS_BLOCKS: ReadonlyMap<string, { of: string; keys: ReadonlyMap<string, ConfigKey> }> = new Map(
  FORGES.flatMap(({ settingsBlock: block, settings }) =>
    block
      ? [
          [
            block.key,
            {
              of: block.of,
              keys: new Map(
                (Object.keys(settings) as ConfigKey[]).map((k) => [
                  k.charAt(block.key.length).toLowerCase() + k.slice(block.key.length + 1),
                  k,
                ]),
              ),
            },
          ],
        ]
      : [],
  ),
);

/**
 * The settings of the client commands (src/cli/client-options.ts), from their flags, GREENLINE_URL /
 * GREENLINE_TOKEN and the client config file (keys as here); not the server's. docs/cli.md's table is
 * tested against it.
 */
export interface ClientSettingAnnotations {
  default?: string;
  /** Its environment variable, if any. */
  env?: string;
  /** Its command-line flag with its argument. */
  flag: string;
  /** The flag's help text. */
  description: string;
  /** The default as docs/cli.md's table starts it, when there is no `default` value. */
  defaultText?: string;
}

const clientSetting = (annotations: ClientSettingAnnotations): ClientSetting =>
  Object.assign(Type.Optional(Type.String({ minLength: 1 })), annotations);

export const DEFAULT_URL = 'http://127.0.0.1:8080';

type ClientSetting = TOptional<TString> & ClientSettingAnnotations;

export const ClientConfigSchema: TObject<Record<'url' | 'token' | 'repo' | 'branch', ClientSetting>> = Type.Object({
  url: clientSetting({
    default: DEFAULT_URL,
    env: 'GREENLINE_URL',
    flag: '--url <url>',
    description: `greenline server (default: GREENLINE_URL, then the client config file, then ${DEFAULT_URL})`,
  }),
  token: clientSetting({
    env: 'GREENLINE_TOKEN',
    flag: '--token <token>',
    defaultText: 'none',
    description: 'API token of the organization (default: GREENLINE_TOKEN, then the client config file)',
  }),
  repo: clientSetting({
    flag: '--repo <repo>',
    defaultText: 'none',
    description: 'repository as HOST/OWNER/NAME, e.g. github.com/acme/web (default: repo: in the client config file)',
  }),
  branch: clientSetting({
    flag: '--branch <branch>',
    defaultText: 'none',
    description: 'target branch of the queue (default: branch: in the client config file)',
  }),
});

/** The client config file's settings (all optional). */
export type ClientConfigFile = Static<typeof ClientConfigSchema>;
export type ClientKey = keyof ClientConfigFile;
export const CLIENT_KEYS = Object.keys(ClientConfigSchema.properties) as ClientKey[];
export const clientSettingOf = (key: ClientKey): TSchema & ClientSettingAnnotations =>
  ClientConfigSchema.properties[key] as TSchema & ClientSettingAnnotations;
/** The client commands' environment variables (the server leaves them alone). */
export const CLIENT_ENV_NAMES: readonly string[] = CLIENT_KEYS.flatMap((k) => clientSettingOf(k).env ?? []);
