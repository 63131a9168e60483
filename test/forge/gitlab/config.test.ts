/** The gitlab settings of the server configuration: read from the environment, checked, secrets never shown. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('gl-gitlab-config-');
});
afterEach(() => removeTempDir(dir));

describe('gitlab configuration', () => {
  it('reads GREENLINE_GITLAB_* variables; gitlab.com by default; the URL loses its trailing slash', () => {
    expect(
      loadConfig({
        cwd: dir,
        env: {
          GREENLINE_GITLAB_URL: 'https://gitlab.example.com/',
          GREENLINE_GITLAB_TOKEN: 'glpat-1',
          GREENLINE_GITLAB_WEBHOOK_SECRET: 'whsec_x',
          GREENLINE_GITLAB_COMMAND_ROLE: 'maintainer',
        },
      }),
    ).toMatchObject({
      gitlabUrl: 'https://gitlab.example.com',
      gitlabToken: 'glpat-1',
      gitlabWebhookSecret: 'whsec_x',
      gitlabCommandRole: 'maintainer',
    });
    expect(loadConfig({ cwd: dir, env: {} })).toMatchObject({
      gitlabUrl: 'https://gitlab.com',
      gitlabToken: null,
      gitlabWebhookSecret: null,
      gitlabCommandRole: 'developer',
    });
  });

  it('names the problem: a URL that is no URL, a role GitLab does not let command', () => {
    expect(() => loadConfig({ cwd: dir, env: { GREENLINE_GITLAB_URL: 'gitlab.example.com' } })).toThrow(ConfigError);
    expect(() => loadConfig({ cwd: dir, env: { GREENLINE_GITLAB_URL: 'gitlab.example.com' } })).toThrow(/gitlabUrl/);
    expect(() => loadConfig({ cwd: dir, env: { GREENLINE_GITLAB_COMMAND_ROLE: 'guest' } })).toThrow(
      /gitlabCommandRole/,
    );
  });
});
