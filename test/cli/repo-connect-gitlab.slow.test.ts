/**
 * `greenline repo connect … --forge gitlab`, the real command line against the fake GitLab (checked
 * against GitLab's OpenAPI description), with a project in a subgroup: the project is read with
 * gitlabToken, stored as GitLab spells it, with its server and MR links, and what was found is
 * printed; a token whose user may not push to the default branch, a project it cannot see, or no
 * token are refused with what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/store/connect.js';
import { ACCESS, FakeGitlabApi } from '../forge/gitlab/fake-gitlab-api.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';
import { runCli } from './run-cli.js';

let fake: FakeGitlabApi;
let dir: string;

beforeAll(async () => {
  fake = await FakeGitlabApi.start('Acme/Tools/Web');
  fake.settings.only_allow_merge_if_pipeline_succeeds = true;
  dir = await makeTempDir('gl-gitlab-connect-');
});
afterAll(async () => {
  await fake.close();
  await removeTempDir(dir);
});

const connectRepo = (
  slug: string,
  more: string[],
  env: Record<string, string> = { GREENLINE_GITLAB_TOKEN: fake.token },
) => runCli(['repo', 'connect', slug, '--org', 'acme', '--forge', 'gitlab', '--data-dir', dir, ...more], env);

describe('repo connect --forge gitlab', () => {
  it('refuses a token whose user may not push, a project it cannot see, and no token, saying what to do', async () => {
    fake.members.set(fake.tokenUser, ACCESS.developer);
    try {
      const developer = await connectRepo('127.0.0.1/acme/tools/web', ['--gitlab-url', fake.url]);
      expect(developer.code).toBe(2);
      expect(developer.stderr).toMatch(
        /may read 127\.0\.0\.1\/Acme\/Tools\/Web but its user may not push to main: .*Maintainer role/,
      );
    } finally {
      fake.members.set(fake.tokenUser, ACCESS.maintainer);
    }
    const unseen = await connectRepo('127.0.0.1/acme/other', ['--gitlab-url', fake.url]);
    expect(unseen.code).toBe(2);
    expect(unseen.stderr).toMatch(
      /GitLab at http:\/\/127\.0\.0\.1:\d+ has no repository acme\/other that greenline may read/,
    );
    const noToken = await connectRepo('127.0.0.1/acme/tools/web', ['--gitlab-url', fake.url], {});
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/no gitlabToken \(GREENLINE_GITLAB_TOKEN\)/);
  });

  it('connects a token whose user may merge into the default branch but not push to it, saying it merges through the API', async () => {
    fake.members.set(fake.tokenUser, ACCESS.developer);
    fake.protectedBranches[0]!.merge = ACCESS.developer;
    const own = await makeTempDir('gl-gitlab-connect-merge-');
    try {
      const r = await runCli(
        ['repo', 'connect', '127.0.0.1/acme/tools/web', '--org', 'acme', '--forge', 'gitlab', '--data-dir', own],
        { GREENLINE_GITLAB_TOKEN: fake.token, GREENLINE_GITLAB_URL: fake.url },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /Its user may merge into main but not push to it: squash and merge_commit merge through GitLab's merge API .* rebase is refused/,
      );
    } finally {
      fake.members.set(fake.tokenUser, ACCESS.maintainer);
      fake.protectedBranches[0]!.merge = ACCESS.maintainer;
      await removeTempDir(own);
    }
  });

  it('reads the project of a subgroup, stores it as GitLab spells it, and says what it found', async () => {
    const r = await connectRepo('127.0.0.1/acme/tools/web', ['--gitlab-url', `${fake.url}/`]);
    expect(r.stdout).toBe(
      'GitLab spells it Acme/Tools/Web; connected as 127.0.0.1/Acme/Tools/Web.\n' +
        'Found on GitLab: default branch main; merge method merge; squash option default_off; "Pipelines must succeed" on (gitlab/pipeline is required); protected branch main: push Maintainers, merge Maintainers.\n' +
        `Connected 127.0.0.1/Acme/Tools/Web to organization acme (forge gitlab, server ${fake.url}).\n`,
    );
    expect(r.code).toBe(0);
    const db = connect({ databaseUrl: null, dataDir: dir });
    try {
      expect(
        await db.selectFrom('repos').select(['owner', 'name', 'forge', 'remote', 'pr_url_template']).execute(),
      ).toEqual([
        {
          owner: 'Acme/Tools',
          name: 'Web',
          forge: 'gitlab',
          remote: fake.url,
          pr_url_template: `${fake.url}/Acme/Tools/Web/-/merge_requests/{n}`,
        },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('refuses --gitlab-url for another forge, naming the one it is for', async () => {
    const r = await runCli(
      [
        'repo',
        'connect',
        'github.com/acme/web',
        '--org',
        'acme',
        '--forge',
        'github',
        '--gitlab-url',
        fake.url,
        '--data-dir',
        dir,
      ],
      {},
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--gitlab-url is for --forge gitlab/);
  });
});
