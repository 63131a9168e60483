/** The gitea settings of the server configuration: read from the environment and greenline.yaml, checked, secrets never shown. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('gl-gitea-config-');
});
afterEach(() => removeTempDir(dir));

describe('gitea configuration', () => {
  it('reads GREENLINE_GITEA_* variables; the URL loses its trailing slash', () => {
    const c = loadConfig({
      cwd: dir,
      env: {
        GREENLINE_GITEA_URL: 'https://git.example.com/',
        GREENLINE_GITEA_TOKEN: 'token-1',
        GREENLINE_GITEA_WEBHOOK_SECRET: 'hook-secret',
      },
    });
    expect(c).toMatchObject({
      giteaUrl: 'https://git.example.com',
      giteaToken: 'token-1',
      giteaWebhookSecret: 'hook-secret',
    });
    expect(loadConfig({ cwd: dir, env: {} })).toMatchObject({
      giteaUrl: null,
      giteaToken: null,
      giteaWebhookSecret: null,
    });
  });

  it('reads the settings from greenline.yaml', async () => {
    await writeFile(join(dir, 'greenline.yaml'), 'giteaUrl: https://codeberg.org\ngiteaToken: from-file\n');
    expect(loadConfig({ cwd: dir, env: {} })).toMatchObject({
      giteaUrl: 'https://codeberg.org',
      giteaToken: 'from-file',
    });
  });

  it('names the problem: a URL without its token, a URL that is no URL', () => {
    expect(() => loadConfig({ cwd: dir, env: { GREENLINE_GITEA_URL: 'https://git.example.com' } })).toThrow(
      /giteaUrl needs giteaToken/,
    );
    expect(loadConfig({ cwd: dir, env: { GREENLINE_GITEA_TOKEN: 't' } }).giteaUrl).toBeNull();
    expect(() =>
      loadConfig({ cwd: dir, env: { GREENLINE_GITEA_URL: 'git.example.com', GREENLINE_GITEA_TOKEN: 't' } }),
    ).toThrow('giteaUrl must be an http(s) URL such as https://git.example.com, got "git.example.com"');
  });

  it('never shows a secret in an error, only what kind of value it was', async () => {
    await writeFile(join(dir, 'greenline.yaml'), 'giteaToken: 123456789\ngiteaWebhookSecret: 987654321\n');
    let error: unknown;
    try {
      loadConfig({ cwd: dir, env: {} });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'giteaToken must be a non-empty string, got a number (not shown: it is a secret)',
    );
    await writeFile(join(dir, 'greenline.yaml'), 'githubToken: 123456789\n');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(/^githubToken must .*got a number \(not shown/);
  });

  it('hides the password of a URL in an error about it', () => {
    expect(() =>
      loadConfig({ cwd: dir, env: { GREENLINE_DATABASE_URL: 'mysql://greenline:hunter2@db/greenline' } }),
    ).toThrow(
      'databaseUrl must start with postgres://, postgresql:// or sqlite:, got "mysql://greenline:***@db/greenline"',
    );
  });
});
