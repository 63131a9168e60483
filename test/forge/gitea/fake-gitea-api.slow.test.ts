/**
 * The fake of Gitea and Forgejo keeps to the forges' documents and behaves as the fact sheet says:
 * requests and answers outside the document are violations, git is served over HTTP behind the
 * token, merges are guarded by the head sha, lists are paged, deliveries are signed.
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

  it('merges only the head it was told, and marks a manual merge merged', async () => {
    const main = (await fake.branchSha('main'))!;
    const head = await fake.commit(main, { 'a.txt': 'a\n' }, 'Add a');
    await fake.openPr(1, { headSha: head });
    const doKey = dialect === 'gitea' ? 'do' : 'Do';
    const stale = await api('POST', '/repos/acme/web/pulls/1/merge', { [doKey]: 'squash', head_commit_id: main });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ message: 'head out of date' });
    expect(await fake.branchSha('main')).toBe(main);

    // The target advanced by a push to exactly the PR's change: recorded as a manual merge.
    await fake.setBranch('main', head);
    const commitKey = dialect === 'gitea' ? 'merge_commit_id' : 'MergeCommitID';
    const res = await api('POST', '/repos/acme/web/pulls/1/merge', {
      [doKey]: 'manually-merged',
      [commitKey]: head,
      head_commit_id: head,
    });
    expect(res.status).toBe(200);
    expect(fake.pull(1)).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: head });
    expect((await api('GET', '/repos/acme/web/pulls/1/merge')).status).toBe(204);
    expect((await api('POST', '/repos/acme/web/pulls/1/merge', { [doKey]: 'merge' })).status).toBe(405);
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

  it('tells collaborator permissions, and 404 for someone it does not know', async () => {
    fake.users.set('rex', 'read');
    expect(await (await api('GET', '/repos/acme/web/collaborators/rex/permission')).json()).toMatchObject({
      permission: 'read',
    });
    expect((await api('GET', '/repos/acme/web/collaborators/nobody/permission')).status).toBe(404);
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
