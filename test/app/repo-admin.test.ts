import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectRepo, disconnectRepo, parseRepoSlug } from '../../src/app/admin/repo-admin.js';
import { findRepo } from '../../src/store/repos.js';
import { createQueueFixture, type QueueFixture } from '../helpers/service.js';

let f: QueueFixture;
beforeEach(async () => {
  f = await createQueueFixture();
});
afterEach(() => f.t.close());

describe('connectRepo', () => {
  it('stores the binding with defaults and creates the org when missing', async () => {
    const row = await connectRepo(
      f.t.db,
      { org: 'newco', slug: 'git.example.com/team/api', forge: 'git', remote: '/srv/api.git' },
      5,
    );
    expect(row).toMatchObject({
      host: 'git.example.com',
      owner: 'team',
      name: 'api',
      forge: 'git',
      remote: '/srv/api.git',
      pr_ref_pattern: 'refs/pull/{n}/head',
      test_branch_prefix: 'greenline-merge',
      ci_command: null,
      required_statuses: null,
    });
    expect((await findRepo(f.t.db, 'git.example.com', 'team', 'api'))?.id).toBe(row.id);
  });

  it.each([
    [{ slug: 'acme/web' }, /HOST\/OWNER\/NAME/],
    [{ slug: 'github.com/acme/../x' }, /HOST\/OWNER\/NAME/],
    [{ prRefPattern: 'refs/heads/pr' }, /must contain \{n\}/],
    [{ testBranchPrefix: 'bad prefix' }, /Invalid test branch prefix/],
    [{ slug: 'github.com/acme/web' }, /already connected/],
    [{ remote: '../shop.git' }, /relative path: give it absolute/],
  ])('refuses %o', async (over, message) => {
    await expect(
      connectRepo(f.t.db, { org: 'acme', slug: 'github.com/acme/other', forge: 'git', remote: '/x', ...over }, 1),
    ).rejects.toThrow(message);
  });

  it('finds a repository by its name in any letter case, and refuses to connect it again in another spelling', async () => {
    const row = await findRepo(f.t.db, 'github.com', 'acme', 'web');
    expect((await findRepo(f.t.db, 'GitHub.COM', 'ACME', 'Web'))?.id).toBe(row!.id);
    await expect(
      connectRepo(f.t.db, { org: 'acme', slug: 'github.com/Acme/Web', forge: 'git', remote: '/x' }, 1),
    ).rejects.toThrow(
      'Repository github.com/Acme/Web is already connected as github.com/acme/web (names are case-insensitive: both name one repository); disconnect github.com/acme/web first to change its settings',
    );
    expect(await f.t.db.selectFrom('repos').select('id').execute()).toHaveLength(1);
    await disconnectRepo(f.t.db, 'github.com/ACME/WEB');
    expect(await findRepo(f.t.db, 'github.com', 'acme', 'web')).toBeUndefined();
  });

  it('parses HOST/OWNER/NAME, the owner a path of groups for a subgroup', () => {
    expect(parseRepoSlug('github.com/acme/web')).toEqual({ host: 'github.com', owner: 'acme', name: 'web' });
    expect(parseRepoSlug('gitlab.example.com/acme/tools/web')).toEqual({
      host: 'gitlab.example.com',
      owner: 'acme/tools',
      name: 'web',
    });
    for (const bad of ['acme/web', 'gitlab.com/acme//web', 'gitlab.com/../web'])
      expect(() => parseRepoSlug(bad)).toThrow(/HOST\/OWNER\/NAME/);
  });
});

describe('disconnectRepo', () => {
  it('refuses while a queue holds PRs, naming them; then deletes the repo and its queues', async () => {
    f.t.forge.openPr(f.repo, { number: 3 });
    await f.t.service.submitPullRequest(f.ctx, f.key, { prNumber: 3 });
    await expect(disconnectRepo(f.t.db, f.repo)).rejects.toThrow(
      /branch "main" of github.com\/acme\/web still holds #3; cancel them first \(greenline pr cancel 3 --repo github.com\/acme\/web --branch main, or the dashboard\)/,
    );
    await f.t.service.cancelPullRequest(f.ctx, f.key, 3);
    await disconnectRepo(f.t.db, f.repo);
    expect(await f.t.db.selectFrom('queues').selectAll().execute()).toEqual([]);
    await expect(disconnectRepo(f.t.db, f.repo)).rejects.toThrow(/is not connected/);
  });
});
