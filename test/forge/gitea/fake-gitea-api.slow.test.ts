/**
 * The fake of Gitea and Forgejo keeps to the forges' documents and behaves as the fact sheet says:
 * requests and answers outside the document are violations, git is served over HTTP behind the
 * token, merges are guarded by the head sha (not manual merges), the merge commit is bound by
 * version, admin-only reads are refused to a Write user, lists are paged, deliveries are signed.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../../src/git/git.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { type Dialect, expectNoViolations, FakeGiteaApi, signedDelivery } from './fake-gitea-api.js';

const DIALECTS: Dialect[] = ['gitea', 'forgejo'];

describe.each(DIALECTS)('the fake %s', (dialect) => {
  let fake: FakeGiteaApi;
  beforeEach(async () => {
    fake = await FakeGiteaApi.start(dialect);
  });
  afterEach(() => fake.close());

  const api = (method: string, path: string, body?: unknown, token = fake.token) =>
    fetch(`${fake.url}/api/v1${path}`, {
      method,
      headers: { authorization: `token ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('answers a request its document describes, and records a violation for one it does not', async () => {
    expect((await api('GET', '/repos/ACME/Web')).status).toBe(200);
    expect(((await (await api('GET', '/repos/ACME/Web')).json()) as { full_name: string }).full_name).toBe('acme/web');
    await api('GET', '/repos/acme/web/no-such-thing');
    await api('POST', '/repos/acme/web/statuses/0123456789012345678901234567890123456789', {
      state: 'success',
      context: 'build',
      conclusion: 'success',
    });
    expect(fake.violations.map((v) => v.message)).toEqual([
      `${dialect} has no GET /repos/acme/web/no-such-thing`,
      'body: (body) must NOT have additional properties: conclusion',
    ]);
    fake.violations.length = 0;
  });

  it('refuses a request without the token', async () => {
    const res = await api('GET', '/repos/acme/web', undefined, 'wrong');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ message: 'token is required' });
  });

  it('takes the merge fields as the dialect spells them', async () => {
    const head = await fake.commit(await fake.branchSha('main'), { 'a.txt': 'a\n' }, 'Add a');
    await fake.openPr(1, { headSha: head });
    const theirs = dialect === 'gitea' ? { Do: 'merge' } : { do: 'merge' };
    const res = await api('POST', '/repos/acme/web/pulls/1/merge', theirs);
    // Go binds the key ignoring case: the merge goes through, but the document does not spell it so.
    expect(res.status).toBe(200);
    expect(fake.violations.map((v) => v.message).join('\n')).toContain(
      `(body) must NOT have additional properties: ${dialect === 'gitea' ? 'Do' : 'do'}`,
    );
    fake.violations.length = 0;
  });

  it('serves the repository over git HTTP behind the token, PR heads included', async () => {
    const head = await fake.commit(await fake.branchSha('main'), { 'a.txt': 'a\n' }, 'Add a');
    await fake.openPr(7, { headSha: head });
    const refs = await git(['ls-remote', fake.gitUrl]);
    expect(refs).toContain(`${head}\trefs/pull/7/head`);
    const noToken = fake.gitUrl.replace(`:${fake.token}@`, ':wrong@');
    await expect(git(['ls-remote', noToken])).rejects.toThrow(/Authentication failed|401/);

    const dir = await makeTempDir('greenline-gitea-clone-');
    try {
      await git(['init', '--bare', '--quiet', dir]);
      await git(['fetch', '--quiet', fake.gitUrl, 'refs/pull/7/head:refs/heads/x'], { cwd: dir });
      await git(['push', '--quiet', fake.gitUrl, `${head}:refs/heads/pushed`], { cwd: dir });
      expect(await fake.branchSha('pushed')).toBe(head);
    } finally {
      await removeTempDir(dir);
    }
  });

  it('merges only the head it was told, and records a manual merge only where the repository allows it', async () => {
    const main = (await fake.branchSha('main'))!;
    const head = await fake.commit(main, { 'a.txt': 'a\n' }, 'Add a');
    await fake.openPr(1, { headSha: head });
    const doKey = dialect === 'gitea' ? 'do' : 'Do';
    const stale = await api('POST', '/repos/acme/web/pulls/1/merge', { [doKey]: 'squash', head_commit_id: main });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ message: 'head out of date' });
    expect(await fake.branchSha('main')).toBe(main);

    // The target advanced by a push to exactly the PR's change: recorded as a manual merge, which a
    // new repository does not allow.
    await fake.setBranch('main', head);
    const commitKey = dialect === 'gitea' ? 'merge_commit_id' : 'MergeCommitID';
    const record = { [doKey]: 'manually-merged', [commitKey]: head, head_commit_id: main };
    const refused = await api('POST', '/repos/acme/web/pulls/1/merge', record);
    expect(refused.status).toBe(405);
    expect(await refused.json()).toMatchObject({ message: 'manually-merged is not allowed an allowed merge style' });
    fake.allowManualMerge = true;
    // The head given is not the PR's: the forge does not look at it for a manual merge.
    expect((await api('POST', '/repos/acme/web/pulls/1/merge', record)).status).toBe(200);
    expect(fake.pull(1)).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: head });
    expect((await api('GET', '/repos/acme/web/pulls/1/merge')).status).toBe(204);
    expect((await api('POST', '/repos/acme/web/pulls/1/merge', { [doKey]: 'merge' })).status).toBe(405);
  });

  it('binds the merge commit under the spelling of its version, and answers 409 {} to the other', async () => {
    const main = (await fake.branchSha('main'))!;
    const head = await fake.commit(main, { 'a.txt': 'a\n' }, 'Add a');
    const doKey = dialect === 'gitea' ? 'do' : 'Do';
    fake.allowManualMerge = true;
    await fake.setBranch('main', head);
    await fake.openPr(1, { headSha: head });
    const other = dialect === 'gitea' ? 'MergeCommitID' : 'merge_commit_id';
    const wrong = await api('POST', '/repos/acme/web/pulls/1/merge', { [doKey]: 'manually-merged', [other]: head });
    expect(wrong.status).toBe(409);
    expect(await wrong.json()).toEqual({});
    expect(fake.pull(1).merged).toBe(false);
    const both = { [doKey]: 'manually-merged', MergeCommitID: head, merge_commit_id: head };
    expect((await api('POST', '/repos/acme/web/pulls/1/merge', both)).status).toBe(200);
    expect(fake.pull(1).merged).toBe(true);
  });

  if (dialect === 'gitea')
    it('binds MergeCommitID on Gitea 1.26', async () => {
      const old = await FakeGiteaApi.start('gitea', { version: '1.26.1' });
      try {
        const main = (await old.branchSha('main'))!;
        const head = await old.commit(main, { 'a.txt': 'a\n' }, 'Add a');
        old.allowManualMerge = true;
        await old.setBranch('main', head);
        await old.openPr(1, { headSha: head });
        const post = (body: unknown) =>
          fetch(`${old.url}/api/v1/repos/acme/web/pulls/1/merge`, {
            method: 'POST',
            headers: { authorization: `token ${old.token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        expect((await post({ do: 'manually-merged', merge_commit_id: head })).status).toBe(409);
        expect((await post({ do: 'manually-merged', MergeCommitID: head })).status).toBe(200);
        expect(old.pull(1).merged).toBe(true);
      } finally {
        await old.close();
      }
    });

  it("refuses a merge the protection's required contexts have not passed, then makes it with git", async () => {
    fake.protections.push({ rule_name: 'main', enable_status_check: true, status_check_contexts: ['build'] });
    const main = (await fake.branchSha('main'))!;
    const head = await fake.commit(main, { 'a.txt': 'a\n' }, 'Add a');
    await fake.openPr(1, { headSha: head });
    const doKey = dialect === 'gitea' ? 'do' : 'Do';
    expect((await api('POST', '/repos/acme/web/pulls/1/merge', { [doKey]: 'merge' })).status).toBe(405);
    fake.addStatus(head, 'build', 'success');
    expect((await api('POST', '/repos/acme/web/pulls/1/merge', { [doKey]: 'merge' })).status).toBe(200);
    const tip = (await fake.branchSha('main'))!;
    const parents = (await git(['rev-list', '--parents', '-1', tip], { cwd: fake.bare })).trim().split(' ');
    expect(parents.slice(1)).toEqual([main, head]);
    expect(await fake.fileAt(tip, 'a.txt')).toBe('a\n');
  });

  it('pages lists with Link and X-Total-Count, at most 50 a page', async () => {
    const sha = (await fake.branchSha('main'))!;
    for (let i = 0; i < 60; i++) fake.addStatus(sha, `check-${i}`, 'success');
    const first = await api('GET', `/repos/acme/web/statuses/${sha}?limit=100`);
    expect(((await first.json()) as unknown[]).length).toBe(50);
    expect(first.headers.get('x-total-count')).toBe('60');
    expect(first.headers.get('link')).toMatch(/limit=50&page=2>; rel="next"/);
    const second = await api('GET', `/repos/acme/web/statuses/${sha}?limit=100&page=2`);
    expect(((await second.json()) as unknown[]).length).toBe(10);
    expect(second.headers.get('link')).not.toContain('rel="next"');
  });

  it('answers the combined status of a commit without statuses with state ""', async () => {
    const sha = (await fake.branchSha('main'))!;
    expect(await (await api('GET', `/repos/acme/web/commits/${sha}/status`)).json()).toMatchObject({
      state: '',
      total_count: 0,
    });
    fake.addStatus(sha, 'build', 'pending');
    fake.addStatus(sha, 'build', 'failure');
    fake.addStatus(sha, 'lint', 'success');
    expect(await (await api('GET', `/repos/acme/web/commits/main/status`)).json()).toMatchObject({
      state: 'failure',
      total_count: 2,
    });
  });

  it("tells a user's own permission, and another's only to an admin", async () => {
    fake.users.set('rex', 'read');
    const rex = '/repos/acme/web/collaborators/rex/permission';
    expect((await api('GET', rex)).status).toBe(403);
    expect(await (await api('GET', '/repos/acme/web/collaborators/greenline/permission')).json()).toMatchObject({
      permission: 'write',
    });
    fake.users.set('greenline', 'admin');
    expect(await (await api('GET', rex)).json()).toMatchObject({ permission: 'read' });
    expect((await api('GET', '/repos/acme/web/collaborators/nobody/permission')).status).toBe(404);
  });

  it('shows a Write user the branch rule and the assignees, and the protection rules only to an admin', async () => {
    fake.users.set('rex', 'read');
    fake.protections.push({
      rule_name: 'ma*',
      enable_status_check: true,
      status_check_contexts: ['build'],
      push_allowlist: ['ada'],
    });
    expect((await api('GET', '/repos/acme/web/branch_protections')).status).toBe(403);
    expect(await (await api('GET', '/repos/acme/web/branches/main')).json()).toMatchObject({
      protected: true,
      effective_branch_protection_name: 'ma*',
      enable_status_check: true,
      status_check_contexts: ['build'],
      user_can_push: false,
    });
    const assignees = (await (await api('GET', '/repos/acme/web/assignees')).json()) as { login: string }[];
    expect(assignees.map((u) => u.login).sort()).toEqual(['ada', 'greenline']);
    fake.users.set('greenline', 'admin');
    expect(await (await api('GET', '/repos/acme/web/branch_protections')).json()).toMatchObject([{ rule_name: 'ma*' }]);
  });

  it("builds deliveries from the captured payloads with the dialect's headers", async () => {
    const head = await fake.commit(await fake.branchSha('main'), { 'a.txt': 'a\n' }, 'Add a');
    await fake.openPr(3, { headSha: head });
    const payload = await fake.pullRequestPayload('synchronized', 3);
    expect(payload).toMatchObject({ action: 'synchronized', number: 3, pull_request: { head: { sha: head } } });
    const d = signedDelivery(dialect, 'pull_request_sync', payload, 's3cret');
    expect(d.headers['x-gitea-event']).toBe('pull_request');
    expect(d.headers['x-gitea-event-type']).toBe('pull_request_sync');
    expect(d.headers['x-forgejo-event']).toBe(dialect === 'forgejo' ? 'pull_request' : undefined);
    expect(d.headers['x-gitea-hook-installation-target-type']).toBe(dialect === 'gitea' ? 'repository' : undefined);
    if (dialect === 'forgejo') expect(() => signedDelivery(dialect, 'status', {}, 's')).toThrow(/no status event/);
  });
});

describe('signedDelivery', () => {
  it("signs the exact bytes as the forges do (the fact sheet's test vector)", () => {
    const body = readFileSync(new URL('../../fixtures/gitea/webhooks/gitea.push.json', import.meta.url), 'utf8');
    const d = signedDelivery('gitea', 'push', body, 'greenline-test-secret');
    expect(d.body).toBe(body);
    expect(d.headers['x-gitea-signature']).toBe('b98d5d5e25195b04d9cbbf99d2cffea9df0d5311921c6a289ed27ca3f2e2adfb');
    expect(d.headers['x-hub-signature-256']).toBe(
      'sha256=b98d5d5e25195b04d9cbbf99d2cffea9df0d5311921c6a289ed27ca3f2e2adfb',
    );
    expect(d.headers['x-hub-signature']).toBe('sha1=1f55332eccd81514e458244790eb4b1ef228039d');
  });

  it('fails a test after which a fake saw a violation', async () => {
    const fake = await FakeGiteaApi.start('gitea');
    try {
      await fetch(`${fake.url}/api/v1/repos/acme/web/pulls?per_page=5`, {
        headers: { authorization: `token ${fake.token}` },
      });
      expect(() => expectNoViolations()).toThrow(/takes no query parameter per_page/);
    } finally {
      await fake.close();
    }
  });
});
