/**
 * The fake GitLab keeps to GitLab's OpenAPI description and behaves as the fact sheet says: requests
 * and answers outside the description are violations; the project of a subgroup is served over git
 * HTTP behind the token; the merge API refuses as documented (405, 409, 422, 401); commit statuses
 * refuse a state they hold and an update in flight; lists are paged with GitLab's headers; a rate
 * limit answers 429; pushes are checked as GitLab checks them (a protected branch takes a push from
 * the roles it allows, a force push only where allowed, no deletion); a push of an MR's head into its
 * target marks it merged; deliveries carry the secret token and a Standard Webhooks signature an
 * independent implementation verifies.
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, runGit } from '../../../src/git/git.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { ACCESS, FakeGitlabApi } from './fake-gitlab-api.js';
import { delivery } from './fake-gitlab-deliveries.js';

const SIGNING = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('the fake GitLab', () => {
  let fake: FakeGitlabApi;
  beforeEach(async () => {
    fake = await FakeGitlabApi.start('acme/tools/web');
  });
  afterEach(() => fake.close());

  const project = encodeURIComponent('acme/tools/web');
  const api = (method: string, path: string, body?: unknown, token = fake.token) =>
    fetch(`${fake.url}/api/v4${path}`, {
      method,
      headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const change = async (file: string, on?: string) =>
    fake.repo.commit(on ?? (await fake.repo.branchSha('main')), { [file]: `${file}\n` }, `Add ${file}`);

  it('answers what its description describes, by path in any letter case, and records a violation otherwise', async () => {
    const res = await api('GET', `/projects/${encodeURIComponent('ACME/Tools/Web')}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { path_with_namespace: string }).path_with_namespace).toBe('acme/tools/web');
    expect((await api('GET', `/projects/${project}`, undefined, 'wrong')).status).toBe(401);
    const head = await change('a.txt');
    await api('POST', `/projects/${project}/statuses/${head}`, { state: 'success', name: 'build', conclusion: 'x' });
    expect(fake.violations.map((v) => v.message)).toEqual([
      'body: (body) must NOT have additional properties: conclusion',
    ]);
    fake.violations.length = 0;
  });

  it('serves the project of a subgroup over git HTTP behind the token, MR heads included', async () => {
    const head = await change('a.txt');
    await fake.openMr(7, { headSha: head });
    expect(await git(['ls-remote', fake.gitUrl])).toContain(`${head}\trefs/merge-requests/7/head`);
    await expect(git(['ls-remote', fake.gitUrl.replace(`:${fake.token}@`, ':wrong@')])).rejects.toThrow();
  });

  it('refuses merges as GitLab documents: draft 405, a moved head 409, a conflict 422, no right 401', async () => {
    const base = await fake.repo.branchSha('main');
    await fake.openMr(1, { headSha: await change('a.txt'), title: 'Draft: a' });
    expect((await api('PUT', `/projects/${project}/merge_requests/1/merge`, {})).status).toBe(405);
    fake.mr(1).title = 'a';
    const wrongSha = await api('PUT', `/projects/${project}/merge_requests/1/merge`, { sha: base });
    expect([wrongSha.status, await wrongSha.json()]).toEqual([
      409,
      { message: 'SHA does not match HEAD of source branch' },
    ]);

    await fake.openMr(2, { headSha: await change('clash.txt') });
    await fake.repo.setBranch('main', await fake.repo.commit(base, { 'clash.txt': 'other\n' }, 'Clash'));
    const clash = await api('PUT', `/projects/${project}/merge_requests/2/merge`, {});
    expect([clash.status, await clash.json()]).toEqual([422, { message: 'Branch cannot be merged' }]);

    fake.members.set(fake.tokenUser, 30);
    expect((await api('PUT', `/projects/${project}/merge_requests/1/merge`, {})).status).toBe(401);
    fake.members.set(fake.tokenUser, 40);
    fake.mr(1).checking = 1;
    expect((await api('PUT', `/projects/${project}/merge_requests/1/merge`, {})).status).toBe(405);
    const merged = await api('PUT', `/projects/${project}/merge_requests/1/merge`, {
      sha: await fake.headOf(1),
      squash: true,
    });
    expect(merged.status).toBe(200);
    const mr = (await merged.json()) as { state: string; merge_commit_sha: string; squash_commit_sha: string };
    expect(mr.state).toBe('merged');
    expect(await fake.repo.branchSha('main')).toBe(mr.merge_commit_sha);
    expect(await fake.repo.fileAt('main', 'a.txt')).toBe('a.txt\n');
  });

  it('refuses a status it already holds (400) and one posted while another is in flight (409); reads the default branch without ref', async () => {
    const head = await change('a.txt');
    await fake.openMr(1, { headSha: head });
    const post = (state: string) =>
      api('POST', `/projects/${project}/statuses/${head}`, { state, name: 'build', ref: 'feature-1' });
    expect((await post('running')).status).toBe(201);
    const again = await post('running');
    expect([again.status, await again.json()]).toEqual([
      400,
      { message: 'Cannot transition status via :run from :running' },
    ]);
    fake.statusUpdatesInFlight = 1;
    expect((await post('success')).status).toBe(409);
    expect((await post('success')).status).toBe(201);
    const onDefault = await (await api('GET', `/projects/${project}/repository/commits/${head}/statuses`)).json();
    const onRef = await (
      await api('GET', `/projects/${project}/repository/commits/${head}/statuses?ref=feature-1`)
    ).json();
    expect([onDefault, (onRef as { status: string }[]).map((s) => s.status)]).toEqual([[], ['success']]);
  });

  it('pages lists with x-next-page and Link, and answers 429 with Retry-After when rate-limited', async () => {
    for (let i = 1; i <= 3; i++) fake.addNote(1, `note ${i}`, 'ada');
    await fake.openMr(1, { headSha: await change('a.txt') });
    const first = await api('GET', `/projects/${project}/merge_requests/1/notes?per_page=2`);
    expect([first.headers.get('x-next-page'), first.headers.get('x-total'), first.headers.get('link')]).toEqual([
      '2',
      '3',
      expect.stringContaining('rel="next"'),
    ]);
    fake.rateLimit(1, 12);
    const limited = await api('GET', `/projects/${project}`);
    expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('ratelimit-remaining')]).toEqual([
      429,
      '12',
      '0',
    ]);
    expect((await api('GET', `/projects/${project}`)).status).toBe(200);
  });

  it('marks an MR merged when its head reaches the target by a push', async () => {
    const head = await change('a.txt');
    await fake.openMr(1, { headSha: head });
    const dir = await makeTempDir('greenline-gitlab-clone-');
    try {
      await git(['init', '--bare', '--quiet', dir]);
      await git(['fetch', '--quiet', fake.gitUrl, 'refs/merge-requests/1/head:refs/heads/x'], { cwd: dir });
      await git(['push', '--quiet', fake.gitUrl, `${head}:refs/heads/main`], { cwd: dir });
    } finally {
      await removeTempDir(dir);
    }
    expect([fake.mr(1).state, fake.mr(1).merge_commit_sha]).toEqual(['merged', null]);
  });

  it('checks pushes as GitLab does: protected branches by role and force push, unprotected ones from Developer up', async () => {
    const base = (await fake.repo.branchSha('main'))!;
    const ahead = await change('a.txt');
    const unrelated = await fake.repo.commit(null, { 'b.txt': 'b\n' }, 'Unrelated history');
    fake.protectedBranches.push({ name: 'release/*', push: ACCESS.developer, merge: 40, allow_force_push: false });
    const dir = await makeTempDir('greenline-gitlab-clone-');
    const push = async (refspec: string, ...flags: string[]) => {
      const out = await runGit(['push', '--porcelain', ...flags, fake.gitUrl, refspec], { cwd: dir, okCodes: [1] });
      return out.code === 0 ? 'pushed' : out.stderr.match(/GitLab: (.*)/)?.[1]?.trim();
    };
    try {
      await git(['init', '--bare', '--quiet', dir]);
      await fake.repo.setBranch('x', ahead);
      await fake.repo.setBranch('y', unrelated);
      await git(['fetch', '--quiet', fake.gitUrl, 'x:x', 'y:y'], { cwd: dir });
      fake.members.set(fake.tokenUser, ACCESS.developer);
      const refused = await runGit(['push', fake.gitUrl, 'x:main'], { cwd: dir, okCodes: [1] });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'remote: GitLab: You are not allowed to push code to protected branches on this project.',
      );
      expect(refused.stderr).toContain('[remote rejected] x -> main (pre-receive hook declined)');
      expect(await push('x:refs/heads/release/1')).toBe('pushed');
      expect(await push('x:refs/heads/feature')).toBe('pushed');
      fake.members.set(fake.tokenUser, ACCESS.reporter);
      expect(await push('x:refs/heads/other')).toBe('You are not allowed to push code to this project.');
      fake.members.set(fake.tokenUser, ACCESS.maintainer);
      expect(await push('y:main', '--force')).toBe(
        'You are not allowed to force push code to a protected branch on this project.',
      );
      expect(await push(':main')).toBe('You can only delete protected branches using the web interface.');
      expect(await fake.repo.branchSha('main')).toBe(base);
      expect(await push('x:main')).toBe('pushed');
      // Of the rules matching a branch, the most permissive decides.
      fake.protectedBranches.push({ name: 'mai*', push: ACCESS.maintainer, merge: 40, allow_force_push: true });
      expect(await push('y:main', '--force')).toBe('pushed');
    } finally {
      await removeTempDir(dir);
    }
    expect(await fake.repo.branchSha('main')).toBe(unrelated);
  });

  it('signs deliveries as Standard Webhooks and sends the secret token', () => {
    const d = delivery(fake.url, { url: '', token: 'tok', signingToken: SIGNING }, 'Push Hook', {
      object_kind: 'push',
    });
    expect(d.headers['x-gitlab-token']).toBe('tok');
    expect(d.headers['idempotency-key']).toBe(d.headers['x-gitlab-event-uuid']);
    expect(new Webhook(SIGNING).verify(d.body, d.headers)).toEqual({ object_kind: 'push' });
  });
});
