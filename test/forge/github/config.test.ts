/** The github settings of the server configuration, and the forge built from them. */
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import type { GreenlineConfig } from '../../../src/config/config.js';
import { type GitHubForge, githubForge } from '../../../src/forge/github/index.js';
import { forgeContext } from '../../../src/forges.js';
import { createForge } from '../../../src/server/server.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('gl-gh-config-');
});
afterEach(() => removeTempDir(dir));
const logger = pino({ level: 'silent' });

/** The github forge the server creates from the configuration (null: not set up). */
const gitHubForgeOf = (config: GreenlineConfig): GitHubForge | null =>
  (createForge(githubForge, config, forgeContext(dir, 30_000, logger)('github'))?.port as GitHubForge | undefined) ??
  null;

describe('github configuration', () => {
  it('reads GREENLINE_GITHUB_* variables', () => {
    const c = loadConfig({
      cwd: dir,
      env: {
        GREENLINE_GITHUB_APP_ID: '123',
        GREENLINE_GITHUB_PRIVATE_KEY_PATH: '/k.pem',
        GREENLINE_GITHUB_WEBHOOK_SECRET: 's',
        GREENLINE_GITHUB_BASE_URL: 'https://ghe.example.com/api/v3/',
        GREENLINE_GITHUB_DETAILS_URL: 'https://q/{pr}',
        GREENLINE_GITHUB_TEST_PR_TITLE: 'chore: test {prs}',
      },
    });
    expect(c).toMatchObject({
      githubAppId: 123,
      githubPrivateKeyPath: '/k.pem',
      githubWebhookSecret: 's',
      githubToken: null,
      githubBaseUrl: 'https://ghe.example.com/api/v3',
      githubDetailsUrl: 'https://q/{pr}',
      githubTestPrTitle: 'chore: test {prs}',
    });
  });

  it('reads a github: mapping in greenline.yaml; the environment wins over it', async () => {
    await writeFile(join(dir, 'greenline.yaml'), 'github:\n  token: ghp_file\n  webhookSecret: from-file\n');
    expect(loadConfig({ cwd: dir, env: {} })).toMatchObject({
      githubToken: 'ghp_file',
      githubWebhookSecret: 'from-file',
    });
    expect(loadConfig({ cwd: dir, env: { GREENLINE_GITHUB_WEBHOOK_SECRET: 'from-env' } }).githubWebhookSecret).toBe(
      'from-env',
    );
  });

  it('names the problem: unknown github key, an App id without its key, a base URL that is no URL', async () => {
    await writeFile(join(dir, 'bad.yaml'), 'github:\n  appid: 1\n');
    expect(() => loadConfig({ cwd: dir, env: {}, configPath: join(dir, 'bad.yaml') })).toThrow(
      /Unknown configuration key "github.appid"/,
    );
    expect(() => loadConfig({ cwd: dir, env: { GREENLINE_GITHUB_APP_ID: '5' } })).toThrow(
      /githubAppId and githubPrivateKeyPath go together/,
    );
    expect(() => loadConfig({ cwd: dir, env: { GREENLINE_GITHUB_BASE_URL: 'api.github.com' } })).toThrow(ConfigError);
  });

  it('builds the forge for an App key file or a token, none without either, and refuses an unreadable key', async () => {
    const defaults = loadConfig({ cwd: dir, env: {} });
    expect(defaults.githubTestPrTitle).toBe('ci: greenline test run for {prs}');
    expect(gitHubForgeOf(defaults)).toBeNull();
    expect(gitHubForgeOf({ ...defaults, githubToken: 't' })!.clients.canCreateCheckRuns).toBe(false);
    const key = join(dir, 'app.pem');
    await writeFile(
      key,
      generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      }).privateKey,
    );
    expect(gitHubForgeOf({ ...defaults, githubAppId: 1, githubPrivateKeyPath: key })!.clients.canCreateCheckRuns).toBe(
      true,
    );
    expect(() =>
      gitHubForgeOf({ ...defaults, githubAppId: 1, githubPrivateKeyPath: join(dir, 'missing.pem') }),
    ).toThrow(/cannot be read/);
    expect(() =>
      gitHubForgeOf({ ...defaults, githubAppId: 1, githubPrivateKeyPath: join(dir, 'missing.pem') }),
    ).toThrow(ConfigError);
    await writeFile(join(dir, 'not-a-key.pem'), 'hello');
    expect(() =>
      gitHubForgeOf({ ...defaults, githubAppId: 1, githubPrivateKeyPath: join(dir, 'not-a-key.pem') }),
    ).toThrow(/not a PEM private key/);
  });
});
