/**
 * Who may command the queue from a PR comment, with the github forge against the FAKE GitHub API:
 * `author_association` where it is conclusive, GitHub's collaborator permission otherwise, and a
 * reply saying why to everyone else.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GitHubForgeOptions } from '../../../src/forge/github/github-forge.js';
import type { Json } from '../../helpers/json.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { createGitHubHarness, type GitHubHarness } from './github-harness.js';
import { gitHubExample } from './webhook-examples.js';

type Payload = Record<string, Json>;
/** GitHub's example comment, on PR 2 of Codertocat/Hello-World, by `login` as `association`. */
function comment(body: string, login: string, association: string): Payload {
  const p = gitHubExample('issue_comment', 'created');
  p.issue.number = 2;
  p.issue.pull_request = {
    url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/2',
    html_url: 'https://github.com/Codertocat/Hello-World/pull/2',
    diff_url: 'https://github.com/Codertocat/Hello-World/pull/2.diff',
    patch_url: 'https://github.com/Codertocat/Hello-World/pull/2.patch',
    merged_at: null,
  };
  p.comment.body = body;
  p.comment.user.login = login;
  p.sender.login = login;
  p.comment.author_association = association;
  return p;
}

let h: GitHubHarness;
afterEach(() => h.close());

async function setUp(forge: Partial<GitHubForgeOptions> = {}): Promise<void> {
  const api = new FakeGitHubApi('Codertocat', 'Hello-World');
  const base = api.commit(null, 'base');
  api.branches.set('master', base);
  api.openPr(2, { headSha: api.commit(base, 'two'), base: 'master' });
  h = await createGitHubHarness({ api, forge });
  await h.app.service.createQueue(h.ctx, key(), {});
}
const key = () => ({
  repo: { host: 'github.com', owner: 'Codertocat', name: 'Hello-World' },
  targetBranch: 'master',
});
const state = async (): Promise<string | null> => {
  const found = await h.app.service
    .getSubmittedPullRequest(h.ctx, key(), { number: 2 })
    .then((r) => r.entry.state)
    .catch(() => null);
  return found;
};
const permissionCalls = () => h.api.log.filter((c) => c.includes('/collaborators/'));

describe('github: who may command the queue from a comment', () => {
  it('a commenter without write access is answered why, and nothing happens', async () => {
    await setUp();
    await h.deliver('issue_comment', comment('/greenline merge', 'bob', 'NONE'));
    expect(await state()).toBeNull();
    expect(h.api.comments.at(-1)!.body).toBe(
      '@bob: greenline ignored the command: only people with write access to Codertocat/Hello-World can command the merge queue; ask a maintainer',
    );
    // NONE is conclusive: GitHub is not asked.
    expect(permissionCalls()).toEqual([]);

    // The owner of a user-owned repository is its admin; a contributor may not cancel the owner's command.
    await h.deliver('issue_comment', comment('/greenline merge', 'Codertocat', 'OWNER'));
    expect(await state()).not.toBeNull();
    await h.deliver('issue_comment', comment('/greenline cancel', 'mallory', 'CONTRIBUTOR'));
    expect(await state()).not.toBe('CANCELLED');
    expect(h.api.comments.at(-1)!.body).toMatch(
      /^@mallory: greenline ignored the command: only people with write access/,
    );
    expect(permissionCalls()).toEqual([]);
  });

  it('a member or collaborator is looked up: triage is refused, write acts', async () => {
    await setUp();
    h.api.collaborators.set('tri', 'triage');
    h.api.collaborators.set('wri', 'write');
    await h.deliver('issue_comment', comment('/greenline merge', 'tri', 'MEMBER'));
    expect(await state()).toBeNull();
    expect(h.api.comments.at(-1)!.body).toMatch(/^@tri: greenline ignored the command: only people with write access/);
    await h.deliver('issue_comment', comment('/greenline merge', 'wri', 'COLLABORATOR'));
    expect(await state()).not.toBeNull();
    expect(permissionCalls()).toEqual([
      'GET /repos/Codertocat/Hello-World/collaborators/tri/permission',
      'GET /repos/Codertocat/Hello-World/collaborators/wri/permission',
    ]);
  });

  it('githubCommandPermission maintain: write is not enough, maintain (reported by GitHub as write) is', async () => {
    await setUp({ commandPermission: 'maintain' });
    h.api.collaborators.set('wri', 'write');
    h.api.collaborators.set('mai', 'maintain');
    await h.deliver('issue_comment', comment('/greenline merge', 'wri', 'COLLABORATOR'));
    expect(await state()).toBeNull();
    expect(h.api.comments.at(-1)!.body).toBe(
      '@wri: greenline ignored the command: only people with maintain access to Codertocat/Hello-World can command the merge queue; ask a maintainer',
    );
    await h.deliver('issue_comment', comment('/greenline merge', 'mai', 'MEMBER'));
    expect(await state()).not.toBeNull();
  });
});
