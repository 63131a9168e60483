/**
 * `greenline repo connect … --forge gitea`, the real command line against a fake Gitea and a fake
 * Forgejo (each checked against its forge's Swagger document): the repository is read with
 * giteaToken, stored as the forge spells it, with its server and PR links, and what was found is
 * printed; a token that may not push, a repository the token cannot see, or no token are refused
 * with what to do; so is, on Gitea, a repository that does not allow manual merges or whose
 * protection does not let the user push, every missing setting said at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/store/connect.js';
import { FakeGiteaApi } from '../forge/gitea/fake-gitea-api.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';
import { runCli } from './run-cli.js';

let fake: FakeGiteaApi;
let dir: string;

beforeAll(async () => {
  fake = await FakeGiteaApi.start('forgejo', { owner: 'Acme', name: 'Web' });
  fake.protections.push({ rule_name: 'main', enable_status_check: true, status_check_contexts: ['ci/build', 'lint'] });
  dir = await makeTempDir('gl-gitea-connect-');
});
afterAll(async () => {
  await fake.close();
  await removeTempDir(dir);
});

const connectRepo = (
  slug: string,
  more: string[],
  env: Record<string, string> = { GREENLINE_GITEA_TOKEN: fake.token },
) => runCli(['repo', 'connect', slug, '--org', 'acme', '--forge', 'gitea', '--data-dir', dir, ...more], env);

describe('repo connect --forge gitea', () => {
  it('reads the repository with the token, stores it as the forge spells it, and says what it found', async () => {
    const r = await connectRepo('127.0.0.1/acme/web', ['--gitea-url', `${fake.url}/`]);
    expect(r.stdout).toBe(
      'Gitea spells it Acme/Web; connected as 127.0.0.1/Acme/Web.\n' +
        'Found on Gitea: default branch main; branch protection "main": requires the statuses ci/build, lint; ' +
        "manual merge: not shown by this server's API (Forgejo); it must be allowed (docs/gitea.md).\n" +
        `Connected 127.0.0.1/Acme/Web to organization acme (forge gitea, server ${fake.url}).\n`,
    );
    expect(r.code).toBe(0);
    const db = connect({ databaseUrl: null, dataDir: dir });
    try {
      expect(
        await db.selectFrom('repos').select(['owner', 'name', 'forge', 'remote', 'pr_url_template']).execute(),
      ).toEqual([
        {
          owner: 'Acme',
          name: 'Web',
          forge: 'gitea',
          remote: fake.url,
          pr_url_template: `${fake.url}/Acme/Web/pulls/{n}`,
        },
      ]);
    } finally {
      await db.destroy();
    }
    expect(fake.calls.every((c) => c.authorization === `token ${fake.token}`)).toBe(true);
  });

  it('refuses a token that may read but not push, a repository it cannot see, and no token, saying what to do', async () => {
    fake.users.set(fake.tokenUser, 'read');
    try {
      const readOnly = await connectRepo('127.0.0.1/acme/web', ['--gitea-url', fake.url]);
      expect(readOnly.code).toBe(2);
      expect(readOnly.stderr).toMatch(
        /may read 127\.0\.0\.1\/Acme\/Web but not push to it: .*Give its user write access/,
      );
    } finally {
      fake.users.set(fake.tokenUser, 'write');
    }
    const missing = await connectRepo('127.0.0.1/acme/nothing', ['--gitea-url', fake.url]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`Gitea at ${fake.url} has no repository acme/nothing that greenline may read`);
    expect(missing.stderr).toMatch(/--no-remote-check/);
    const noToken = await connectRepo('127.0.0.1/acme/other', ['--gitea-url', fake.url], {});
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/no giteaToken \(GREENLINE_GITEA_TOKEN\)/);
  });

  it('refuses, with a Write token, a Gitea repository set up with the defaults, naming every setting to change', async () => {
    const gitea = await FakeGiteaApi.start('gitea', { name: 'site', version: '1.26.1' });
    try {
      gitea.protections.push({
        rule_name: 'main',
        enable_status_check: false,
        status_check_contexts: [],
        push_allowlist: [],
      });
      const refused = await connectRepo('127.0.0.1/acme/site', ['--gitea-url', gitea.url], {
        GREENLINE_GITEA_TOKEN: gitea.token,
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('127.0.0.1/acme/site is not set up for greenline yet:\n');
      expect(refused.stderr).toContain(
        '- It does not allow marking a PR merged manually, which is how greenline records each PR it lands (otherwise the PR stays open). In the repository: Settings → Repository → Pull Requests, tick "Enable Mark PR as manually merged" (allow_manual_merge) and save.\n',
      );
      expect(refused.stderr).toContain(
        '- Branch protection "main" does not let the token\'s user push to main, and greenline lands PRs by pushing the tested commit. In the repository: Settings → Branches → edit "main", enable push with an allowlist and add the user (or a team it is in).\n',
      );
      gitea.allowManualMerge = true;
      gitea.protections[0]!.push_allowlist = [gitea.tokenUser];
      const connected = await connectRepo('127.0.0.1/acme/site', ['--gitea-url', gitea.url], {
        GREENLINE_GITEA_TOKEN: gitea.token,
      });
      expect(connected.stdout).toContain(
        'Found on Gitea: default branch main; branch protection "main": requires no status; manual merge allowed.\n',
      );
      // Everything read with what a Write user may read: no admin-only endpoint was asked.
      expect(gitea.calls.filter((c) => c.status === 403)).toEqual([]);
    } finally {
      await gitea.close();
    }
  });

  it('refuses what is not for gitea, and a --gitea-url that is no URL', async () => {
    expect((await connectRepo('127.0.0.1/acme/x', ['--remote', '/srv/x.git'])).stderr).toMatch(
      /--remote is for --forge git/,
    );
    expect((await connectRepo('127.0.0.1/acme/x', ['--ci-command', 'make'])).stderr).toMatch(
      /--ci-command is for --forge git/,
    );
    expect((await connectRepo('127.0.0.1/acme/x', ['--gitea-url', 'git.example.com'])).stderr).toMatch(
      /--gitea-url must be an http\(s\) URL/,
    );
    const github = await runCli([
      'repo',
      'connect',
      'github.com/acme/x',
      '--org',
      'acme',
      '--forge',
      'github',
      '--gitea-url',
      fake.url,
      '--data-dir',
      dir,
    ]);
    expect(github.stderr).toMatch(/--gitea-url is for --forge gitea/);
  });
});
