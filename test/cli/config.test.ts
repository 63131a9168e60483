/** Configuration layering: defaults ← file ← env ← flags; validated once; unknown keys named. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ConfigError, DEFAULT_CONFIG, loadConfig, readEnv } from '../../src/config/config.js';
import { createServer } from '../../src/server/server.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

describe('readEnv', () => {
  it('maps GREENLINE_* variables to keys and ignores other variables', () => {
    expect(
      readEnv({ GREENLINE_PORT: '9000', GREENLINE_ENUM_CASE: 'lower', GREENLINE_DATA_DIR: '/d', PATH: '/bin' }),
    ).toEqual({ port: '9000', enumCase: 'lower', dataDir: '/d' });
  });

  it('refuses an unknown GREENLINE_ variable, naming it', () => {
    expect(() => readEnv({ GREENLINE_PROT: '1' })).toThrow(/GREENLINE_PROT/);
  });

  it('leaves the variables the CI runner sets for its commands alone', () => {
    expect(
      readEnv({
        GREENLINE_TEST_RUN_ID: 'x',
        GREENLINE_PR_NUMBERS: '1,2',
        GREENLINE_TEST_BRANCH: 'b',
        GREENLINE_CI_TAG: 't',
      }),
    ).toEqual({});
  });

  it("leaves the client commands' GREENLINE_URL and GREENLINE_TOKEN alone, so serve starts with them exported", () => {
    expect(
      readEnv({ GREENLINE_URL: 'http://127.0.0.1:8080', GREENLINE_TOKEN: 'gl_x', GREENLINE_PORT: '9000' }),
    ).toEqual({ port: '9000' });
  });
});

describe('loadConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDirSync('greenline-config-');
  });
  afterEach(() => removeTempDir(dir));

  it('uses the defaults when nothing is given, frozen, with the data dir resolved against the directory', () => {
    const c = loadConfig({ env: {}, cwd: dir });
    expect(c).toEqual({ ...DEFAULT_CONFIG, dataDir: join(dir, '.greenline') });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('makes every relative path absolute against the directory it runs in, from any source', () => {
    writeFileSync(join(dir, 'greenline.yaml'), 'github:\n  appId: 7\n  privateKeyPath: keys/app.pem\n');
    const c = loadConfig({
      cwd: dir,
      env: { GREENLINE_DATABASE_URL: 'sqlite:db/queue.db' },
      flags: { dataDir: '../data' },
    });
    expect(c.dataDir).toBe(join(dir, '..', 'data'));
    expect(c.databaseUrl).toBe(`sqlite:${join(dir, 'db', 'queue.db')}`);
    expect(c.githubPrivateKeyPath).toBe(join(dir, 'keys', 'app.pem'));
  });

  it('keeps absolute paths, an in-memory SQLite and a PostgreSQL URL as they are', () => {
    expect(
      loadConfig({ cwd: dir, env: {}, flags: { dataDir: '/srv/greenline', databaseUrl: 'sqlite::memory:' } }),
    ).toMatchObject({ dataDir: '/srv/greenline', databaseUrl: 'sqlite::memory:' });
    expect(loadConfig({ cwd: dir, env: {}, flags: { databaseUrl: 'postgres://u@h/db' } }).databaseUrl).toBe(
      'postgres://u@h/db',
    );
  });

  it('reads the settings a forge keeps in the data directory beneath greenline.yaml, their paths against the data directory', () => {
    const data = join(dir, 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'github-app.yaml'), 'appId: 7\nprivateKeyPath: github-app.pem\nwebhookSecret: kept\n');
    writeFileSync(join(dir, 'greenline.yaml'), 'dataDir: data\ngithub:\n  webhookSecret: given\n');
    expect(loadConfig({ cwd: dir, env: {} })).toMatchObject({
      githubAppId: 7,
      githubPrivateKeyPath: join(data, 'github-app.pem'),
      githubWebhookSecret: 'given',
    });
    writeFileSync(join(data, 'github-app.yaml'), 'appID: 7\n');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(
      `Unknown GitHub settings key "appID" in settings file ${join(data, 'github-app.yaml')}; known: appId, privateKeyPath,`,
    );
  });

  it('reads a relative --config file from the directory it runs in', () => {
    writeFileSync(join(dir, 'other.yaml'), 'port: 7300\n');
    expect(loadConfig({ cwd: dir, configPath: 'other.yaml', env: {} }).port).toBe(7300);
  });

  it('layers file < env < flags', () => {
    writeFileSync(join(dir, 'greenline.yaml'), 'port: 7000\nhost: 0.0.0.0\nlogLevel: debug\n');
    const c = loadConfig({
      cwd: dir,
      env: { GREENLINE_PORT: '7100', GREENLINE_HOST: '::1' },
      flags: { port: '7200', host: undefined },
    });
    expect(c).toMatchObject({ port: 7200, host: '::1', logLevel: 'debug' });
  });

  it('reads an explicit --config file and requires it to exist', () => {
    const file = join(dir, 'other.yaml');
    writeFileSync(file, 'databaseUrl: postgres://u@h/db\n');
    expect(loadConfig({ configPath: file, env: {} }).databaseUrl).toBe('postgres://u@h/db');
    expect(() => loadConfig({ configPath: join(dir, 'missing.yaml'), env: {} })).toThrow(/does not exist/);
  });

  it('reads the lease length from the environment and from the flag', () => {
    expect(loadConfig({ cwd: dir, env: { GREENLINE_LEASE_TTL_SECONDS: '5' } }).leaseTtlSeconds).toBe(5);
    expect(
      loadConfig({ cwd: dir, env: { GREENLINE_LEASE_TTL_SECONDS: '5' }, flags: { leaseTtlSeconds: '7' } })
        .leaseTtlSeconds,
    ).toBe(7);
    expect(DEFAULT_CONFIG.leaseTtlSeconds).toBe(15);
  });

  it('reads how many days finished work records are kept from the environment and from the flag', () => {
    expect(DEFAULT_CONFIG.retentionDays).toBe(30);
    expect(loadConfig({ cwd: dir, env: { GREENLINE_RETENTION_DAYS: '7' } }).retentionDays).toBe(7);
    expect(
      loadConfig({ cwd: dir, env: { GREENLINE_RETENTION_DAYS: '7' }, flags: { retentionDays: '90' } }).retentionDays,
    ).toBe(90);
  });

  it("reads the CI identity's issuer, audience and key set from the environment and the file; empty issuer: none", () => {
    expect(DEFAULT_CONFIG).toMatchObject({
      oidcIssuer: 'https://token.actions.githubusercontent.com',
      oidcAudience: 'greenline',
      oidcJwksUrl: null,
    });
    writeFileSync(join(dir, 'greenline.yaml'), 'oidcAudience: https://greenline.example.com\n');
    expect(
      loadConfig({
        cwd: dir,
        env: {
          GREENLINE_OIDC_ISSUER: 'https://ghe.example.com/_services/token',
          GREENLINE_OIDC_JWKS_URL: 'https://keys.example/jwks',
        },
      }),
    ).toMatchObject({
      oidcIssuer: 'https://ghe.example.com/_services/token',
      oidcAudience: 'https://greenline.example.com',
      oidcJwksUrl: 'https://keys.example/jwks',
    });
    expect(loadConfig({ cwd: dir, env: { GREENLINE_OIDC_ISSUER: '' } }).oidcIssuer).toBe('');
    expect(() =>
      loadConfig({ cwd: dir, env: { GREENLINE_OIDC_ISSUER: 'token.actions.githubusercontent.com' } }),
    ).toThrow(
      'oidcIssuer must be an http(s) URL such as https://token.actions.githubusercontent.com, or empty to accept no ID token, got "token.actions.githubusercontent.com"',
    );
  });

  it("an environment variable or flag set to the default value wins over the file's github: mapping", () => {
    writeFileSync(join(dir, 'greenline.yaml'), 'github:\n  baseUrl: https://ghe.example.com/api/v3\n');
    expect(loadConfig({ cwd: dir, env: {} }).githubBaseUrl).toBe('https://ghe.example.com/api/v3');
    expect(loadConfig({ cwd: dir, env: { GREENLINE_GITHUB_BASE_URL: 'https://api.github.com' } }).githubBaseUrl).toBe(
      'https://api.github.com',
    );
    expect(loadConfig({ cwd: dir, env: {}, flags: { githubBaseUrl: 'https://api.github.com' } }).githubBaseUrl).toBe(
      'https://api.github.com',
    );
  });

  it('names an unknown key of the file', () => {
    writeFileSync(join(dir, 'greenline.yaml'), 'prot: 1\n');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(/Unknown configuration key "prot"/);
  });

  it('names the file in which an unknown key is, and accepts the github mapping there', () => {
    const file = join(dir, 'greenline.yaml');
    writeFileSync(file, 'prot: 1\n');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(
      `Unknown configuration key "prot" in config file ${file}; known: port, host,`,
    );
    writeFileSync(file, 'github:\n  baseUrl: http://127.0.0.1:1\n');
    expect(loadConfig({ cwd: dir, env: {} }).githubBaseUrl).toBe('http://127.0.0.1:1');
  });

  it.each([
    [{ port: '70000' }, /port must be an integer from 0 to 65535/],
    [{ enumCase: 'title' }, /enumCase must be one of upper, lower/],
    [{ databaseUrl: 'mysql://x' }, /databaseUrl must start with/],
    [{ ciMaxParallel: '0' }, /ciMaxParallel must be an integer from 1/],
    [{ pollIntervalSeconds: 'soon' }, /pollIntervalSeconds must be an integer/],
    [{ leaseTtlSeconds: '0' }, /leaseTtlSeconds must be an integer from 1 to 3600/],
    [{ retentionDays: '0' }, /retentionDays must be an integer from 1 to 3650/],
  ])('rejects %o with a message naming the key', (flags, message) => {
    expect(() => loadConfig({ cwd: dir, env: {}, flags })).toThrow(ConfigError);
    expect(() => loadConfig({ cwd: dir, env: {}, flags })).toThrow(message);
  });

  it('rejects a file that is not a mapping', () => {
    writeFileSync(join(dir, 'greenline.yaml'), '- a\n- b\n');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(/must be a mapping/);
  });
});

describe('createServer', () => {
  it('refuses a configuration whose data dir is relative: git and CI commands run in other directories', () => {
    expect(() => createServer(DEFAULT_CONFIG, pino({ level: 'silent' }))).toThrow(
      /dataDir must be an absolute path, got "\.\/\.greenline": build the configuration with loadConfig/,
    );
  });
});
