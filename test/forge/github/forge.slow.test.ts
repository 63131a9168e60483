/**
 * The github forge alone against the FAKE GitHub API: reading PRs, building test branches, merging
 * with each method, rate limits and retries, and GitHub App authentication.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunPr } from '../../../src/engine/types.js';
import { ForgeUnreachableError } from '../../../src/forge/port.js';
import { freePort } from '../../helpers/free-port.js';
import { bindingFor, makeForge, prEvent } from './github-harness.js';
import { FakeGitHubApi } from './fake-github-api.js';

/** A repository on the fake API with `main` at `base` and PRs 1 and 2 (heads h1, h2; `prs` both in order). */
function repoWithPrs(): { api: FakeGitHubApi; base: string; h1: string; h2: string; prs: RunPr[] } {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  const h1 = api.commit(base, 'one');
  const h2 = api.commit(base, 'two');
  api.openPr(1, { headSha: h1 });
  api.openPr(2, { headSha: h2 });
  const prs = [
    { number: 1, headSha: h1 },
    { number: 2, headSha: h2 },
  ];
  return { api, base, h1, h2, prs };
}

/** A PR event as the engine emits it, for PR `pr`. */
describe('github forge: pull requests', () => {
  it('maps draft, conflicts, blocked and unknown mergeability; closed or missing PRs are null', async () => {
    const { api } = repoWithPrs();
    const forge = makeForge(api);
    const b = bindingFor(api);
    expect(await forge.getPullRequest(b, 1)).toMatchObject({
      number: 1,
      baseBranch: 'main',
      author: 'ada',
      mergeability: 'mergeable',
    });
    expect(await forge.getPullRequest(b, 1)).not.toHaveProperty('unmergeable');
    Object.assign(api.pulls.get(1)!, { draft: true });
    expect(await forge.getPullRequest(b, 1)).toMatchObject({
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'draft' },
    });
    Object.assign(api.pulls.get(1)!, { draft: false, mergeable: null, mergeable_state: 'unknown' });
    expect((await forge.getPullRequest(b, 1))!.mergeability).toBe('in_progress');
    Object.assign(api.pulls.get(1)!, { mergeable: true, mergeable_state: 'blocked' });
    expect(await forge.getPullRequest(b, 1)).toMatchObject({
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'blocked' },
    });
    Object.assign(api.pulls.get(1)!, { mergeable: false, mergeable_state: 'dirty' });
    expect(await forge.getPullRequest(b, 1)).toMatchObject({
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'conflict' },
    });
    Object.assign(api.pulls.get(1)!, { state: 'closed' });
    expect(await forge.getPullRequest(b, 1)).toBeNull();
    expect(await forge.getPullRequest(b, 99)).toBeNull();
    expect(await forge.getBranchSha(b, 'nope')).toBeNull();
  });

  it("reports a PR's labels (freeze exemptions)", async () => {
    const { api } = repoWithPrs();
    const forge = makeForge(api);
    const b = bindingFor(api);
    expect((await forge.getPullRequest(b, 1))!.labels).toEqual([]);
    api.pulls.get(1)!.labels.push({ name: 'hotfix' }, { name: 'backend' });
    expect((await forge.getPullRequest(b, 1))!.labels).toEqual(['hotfix', 'backend']);
  });

  it('required statuses come from branch protection and rulesets; none without protection', async () => {
    const { api } = repoWithPrs();
    const forge = makeForge(api);
    expect(await forge.requiredStatuses(bindingFor(api), 'main')).toEqual([]);
    api.requiredChecks.set('main', ['build', 'test']);
    expect(await forge.requiredStatuses(bindingFor(api), 'main')).toEqual(['build', 'test']);
  });
});

describe('github forge: workflow runs of fork PRs (impacted-target uploads without a token)', () => {
  it('vouches for a running pull-request run from a fork on the head sha, and says why not otherwise', async () => {
    const { api, h1, h2 } = repoWithPrs();
    const forge = makeForge(api);
    const b = bindingFor(api);
    api.workflowRuns.set(42, {
      status: 'in_progress',
      head_sha: h1,
      event: 'pull_request',
      head_repository: { full_name: 'someone/web' },
    });
    expect(await forge.verifyForkCiRun(b, '42', h1)).toEqual({ ok: true });
    expect(await forge.verifyForkCiRun(b, '42', h2)).toEqual({
      ok: false,
      reason: `workflow run 42 runs on ${h1}, not on ${h2}`,
    });
    expect(await forge.verifyForkCiRun(b, '43', h1)).toEqual({ ok: false, reason: 'no workflow run 43 in acme/web' });
    expect(await forge.verifyForkCiRun(b, 'abc', h1)).toEqual({ ok: false, reason: '"abc" is not a workflow run id' });
    api.workflowRuns.set(44, {
      status: 'in_progress',
      head_sha: h1,
      event: 'pull_request',
      head_repository: { full_name: 'acme/web' },
    });
    expect(await forge.verifyForkCiRun(b, '44', h1)).toEqual({
      ok: false,
      reason: 'workflow run 44 is not for a pull request from a fork',
    });
    api.workflowRuns.set(45, {
      status: 'in_progress',
      head_sha: h1,
      event: 'push',
      head_repository: { full_name: 'someone/web' },
    });
    expect(await forge.verifyForkCiRun(b, '45', h1)).toMatchObject({ ok: false });
    api.workflowRuns.get(42)!.status = 'completed';
    expect(await forge.verifyForkCiRun(b, '42', h1)).toEqual({ ok: false, reason: 'workflow run 42 has completed' });
    expect(api.log.filter((c) => c.startsWith('GET /repos/acme/web/actions/runs/'))).toHaveLength(6);
  });
});

describe('github forge: test branches', () => {
  it('lists the branches under a prefix (matching refs)', async () => {
    const { api, base } = repoWithPrs();
    const forge = makeForge(api);
    api.branches.set('greenline-merge/pr-1/a', base);
    api.branches.set('greenline-merge-temp/pr-1/a', base);
    expect(await forge.listBranches(bindingFor(api), 'greenline-merge/')).toEqual(['greenline-merge/pr-1/a']);
    expect(api.log.at(-1)).toBe('GET /repos/acme/web/git/matching-refs/heads/greenline-merge/');
  });
  it('builds merge commits on a temporary branch, publishes the test branch and removes the temporary one', async () => {
    const { api, base, h1, h2, prs } = repoWithPrs();
    const forge = makeForge(api);
    const r = await forge.createTestBranch(bindingFor(api), {
      branch: 'greenline-merge/pr-1-2/run',
      baseSha: base,
      prs,
    });
    expect(r.ok).toBe(true);
    const sha = (r as { sha: string }).sha;
    expect(api.branches.get('greenline-merge/pr-1-2/run')).toBe(sha);
    expect(api.isAncestor(h1, sha) && api.isAncestor(h2, sha)).toBe(true);
    expect([...api.branches.keys()]).toEqual(['main', 'greenline-merge/pr-1-2/run']);
    // Each step: the commit after each PR merged, the last the test commit.
    const [afterFirst, last] = (r as { steps: string[] }).steps;
    expect(last).toBe(sha);
    expect(api.isAncestor(h1, afterFirst!) && !api.isAncestor(h2, afterFirst!)).toBe(true);
    // A retry replaces the branch with the same content.
    const again = await forge.createTestBranch(bindingFor(api), {
      branch: 'greenline-merge/pr-1-2/run',
      baseSha: base,
      prs,
    });
    expect(again).toEqual({ ok: true, sha, steps: [afterFirst, sha] });
  });

  it('lists the paths a commit changed since its merge base by comparing, and none past what GitHub lists', async () => {
    const api = new FakeGitHubApi();
    const base = api.commit(null, 'base', ['README.md']);
    const head = api.commit(api.commit(base, 'one', ['web/a.css']), 'two', ['api/x.go', 'web/a.css']);
    api.branches.set('main', api.commit(base, 'elsewhere', ['docs/x.md']));
    const forge = makeForge(api);
    expect(await forge.changedFiles(bindingFor(api), { from: api.branches.get('main')!, to: head })).toEqual([
      'api/x.go',
      'web/a.css',
    ]);
    expect(api.log.at(-1)).toBe(`GET /repos/acme/web/compare/${api.branches.get('main')}...${head}`);
    // GitHub lists at most 300 files of a comparison: with as many, some may be missing.
    const many = api.commit(
      base,
      'many',
      Array.from({ length: 301 }, (_, i) => `f/${i}.txt`),
    );
    expect(await forge.changedFiles(bindingFor(api), { from: base, to: many })).toBeNull();
  });

  it('a conflict is START_TEST_RUN_MERGE_CONFLICT naming the PR, and leaves no branch behind', async () => {
    const { api, base, h2, prs } = repoWithPrs();
    api.conflicting.add(h2);
    const r = await makeForge(api).createTestBranch(bindingFor(api), {
      branch: 'greenline-merge/pr-1-2/run',
      baseSha: base,
      prs,
    });
    expect(r).toMatchObject({
      ok: false,
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: expect.stringMatching(/PR #2 does not merge cleanly .* with #1: Merge conflict/),
    });
    expect([...api.branches.keys()]).toEqual(['main']);
  });
});

describe('github forge: advanceTarget', () => {
  type Method = Parameters<ReturnType<typeof makeForge>['advanceTarget']>[1]['method'];
  /** Advances `main` of `api` from `expectedSha` to `testSha` (one the fake does not check: `x`). */
  const advance = (api: FakeGitHubApi, expectedSha: string, prs: RunPr[], method: Method, testSha = 'x') =>
    makeForge(api).advanceTarget(bindingFor(api), { targetBranch: 'main', expectedSha, testSha, prs, method });

  async function tested(api: FakeGitHubApi, base: string, prs: { number: number; headSha: string }[]): Promise<string> {
    const r = await makeForge(api).createTestBranch(bindingFor(api), {
      branch: 'greenline-merge/t/run',
      baseSha: base,
      prs,
    });
    if (!r.ok) throw new Error(r.detail);
    return r.sha;
  }

  it('merge_commit fast-forwards the target to the tested commit (update ref, force=false)', async () => {
    const { api, base, prs } = repoWithPrs();
    const testSha = await tested(api, base, prs);
    api.clearLog();
    const r = await advance(api, base, prs, 'merge_commit', testSha);
    expect(r).toEqual({ ok: true, newSha: testSha });
    expect(api.log).toEqual([
      'GET /repos/acme/web/branches/main', // whether greenline's own check is required (own-check.test.ts)
      'GET /repos/acme/web/rules/branches/main?per_page=100',
      'GET /repos/acme/web/git/ref/heads/main',
      'GET /repos/acme/web/pulls/1',
      'GET /repos/acme/web/pulls/2',
      'PATCH /repos/acme/web/git/refs/heads/main',
    ]);
    expect(api.calls.at(-1)!.body).toEqual({ sha: testSha, force: false });
  });

  it('merge_commit on a protected branch merges PR by PR with the sha guard instead', async () => {
    const { api, base, h1, h2, prs } = repoWithPrs();
    api.protectedBranches.add('main');
    const testSha = await tested(api, base, prs);
    api.clearLog();
    const r = await advance(api, base, prs, 'merge_commit', testSha);
    expect(r).toEqual({ ok: true, newSha: api.branches.get('main') });
    expect(api.log.slice(5)).toEqual([
      'PATCH /repos/acme/web/git/refs/heads/main',
      'GET /repos/acme/web/branches/main', // what protection and rulesets say about merging PR by PR
      'GET /repos/acme/web/rules/branches/main?per_page=100',
      'PUT /repos/acme/web/pulls/1/merge',
      'PUT /repos/acme/web/pulls/2/merge',
    ]);
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { sha: h1, merge_method: 'merge' },
      { sha: h2, merge_method: 'merge' },
    ]);
  });

  it('squash uses the merge-commit-title line of the PR body; rebase ignores it', async () => {
    const { api, base, h1 } = repoWithPrs();
    api.pulls.get(1)!.body = 'Text\nmerge-commit-title: Ship the feature (#1)\nMore';
    const prs = [{ number: 1, headSha: h1 }];
    const r = await advance(api, base, prs, 'squash');
    expect(r.ok).toBe(true);
    expect(api.calls.find((c) => c.method === 'PUT')!.body).toEqual({
      sha: h1,
      merge_method: 'squash',
      commit_title: 'Ship the feature (#1)',
    });
  });

  it('a target that moved is TARGET_MOVED with nothing merged; a PR pushed to is PR_UPDATED_AT_MERGE_TIME', async () => {
    const { api, base, h2, prs } = repoWithPrs();
    api.branches.set('main', api.commit(base, 'outside'));
    expect(await advance(api, base, prs, 'squash')).toMatchObject({ ok: false, reason: 'TARGET_MOVED' });
    api.branches.set('main', base);
    api.pulls.get(2)!.head.sha = api.commit(h2, 'pushed');
    expect(await advance(api, base, prs, 'squash')).toMatchObject({
      ok: false,
      reason: 'PR_UPDATED_AT_MERGE_TIME',
      detail: expect.stringMatching(/PR #2 is at .*nothing merged/),
    });
    expect(api.log.filter((l) => l.startsWith('PUT'))).toEqual([]);
  });

  it('GitHub refusing the merge (409 head modified, 405 not mergeable) maps to the contract reasons, with what was merged before', async () => {
    const { api, base, prs } = repoWithPrs();
    api.failNext('PUT', /pulls\/2\/merge$/, 409, {
      message: 'Head branch was modified. Review and try the merge again.',
    });
    const r = await advance(api, base, prs, 'squash');
    expect(r).toEqual({
      ok: false,
      reason: 'PR_UPDATED_AT_MERGE_TIME',
      detail: 'PR #2 changed before it was merged: Head branch was modified. Review and try the merge again.',
      mergedPrNumbers: [1],
      newSha: api.branches.get('main'),
    });

    const api2 = repoWithPrs();
    api2.api.pulls.get(1)!.mergeable = false;
    const r2 = await advance(api2.api, api2.base, [{ number: 1, headSha: api2.h1 }], 'rebase');
    expect(r2).toEqual({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: 'GitHub refused to merge PR #1 (HTTP 405): Pull Request is not mergeable; nothing merged',
    });
    // 405 is final (only "Base branch was modified" is tried again).
    expect(api2.api.log.filter((l) => l.startsWith('PUT'))).toHaveLength(1);
  });

  it('a 5xx on merge is retried, then the merge goes through', async () => {
    const { api, base, h1 } = repoWithPrs();
    api.failNext('PUT', /pulls\/1\/merge$/, 502, { message: 'Server Error' }, {}, 2);
    const r = await advance(api, base, [{ number: 1, headSha: h1 }], 'squash');
    expect(r).toEqual({ ok: true, newSha: api.branches.get('main') });
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.status)).toEqual([502, 502, 200]);
  });

  it('a retry after a merge that went through finds every PR merged: success at the current head', async () => {
    const { api, base, h1 } = repoWithPrs();
    const forge = makeForge(api);
    const req = {
      targetBranch: 'main',
      expectedSha: base,
      testSha: 'x',
      prs: [{ number: 1, headSha: h1 }],
      method: 'squash' as const,
    };
    const first = await forge.advanceTarget(bindingFor(api), req);
    expect(await forge.advanceTarget(bindingFor(api), req)).toEqual(first);
  });
});

describe('github forge: rate limits', () => {
  /** PR 1's reads answer 429, a secondary rate limit to retry after `retryAfter` seconds, `times` times. */
  const secondaryRateLimit = (
    api: FakeGitHubApi,
    retryAfter: string,
    times = 1,
    message = 'You have exceeded a secondary rate limit.',
  ) => api.failNext('GET', /pulls\/1$/, 429, { message }, { 'retry-after': retryAfter }, times);

  it('429 secondary rate limit with retry-after: waits and retries the same request', async () => {
    const { api } = repoWithPrs();
    secondaryRateLimit(
      api,
      '3',
      1,
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
    );
    const pr = await makeForge(api).getPullRequest(bindingFor(api), 1);
    expect(pr?.number).toBe(1);
    expect(api.calls.map((c) => `${c.status} ${c.method} ${c.path}`)).toEqual([
      '429 GET /repos/acme/web/pulls/1',
      '200 GET /repos/acme/web/pulls/1',
    ]);
  });

  it('403 with x-ratelimit-remaining 0 waits until x-ratelimit-reset, then retries', async () => {
    const { api } = repoWithPrs();
    const reset = String(Math.floor(Date.now() / 1000) + 2);
    api.failNext(
      'GET',
      /git\/ref\/heads\/main$/,
      403,
      { message: 'API rate limit exceeded for installation ID 1.' },
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
    );
    expect(await makeForge(api).getBranchSha(bindingFor(api), 'main')).toBe(api.branches.get('main'));
    expect(api.calls.map((c) => c.status)).toEqual([403, 200]);
  });

  it('a wait longer than maxWaitSeconds is not waited: the call fails and the effect is retried later', async () => {
    const { api } = repoWithPrs();
    secondaryRateLimit(api, '3600');
    const forge = makeForge(api, { throttle: { ...makeForgeThrottle(), maxWaitSeconds: 60 } });
    await expect(forge.getPullRequest(bindingFor(api), 1)).rejects.toThrow(/secondary rate limit/);
    expect(api.calls).toHaveLength(1);
  });

  it('gives up after maxRetries rate-limited answers', async () => {
    const { api } = repoWithPrs();
    secondaryRateLimit(api, '1', 5);
    const forge = makeForge(api, { throttle: { ...makeForgeThrottle(), maxRetries: 2 } });
    await expect(forge.getPullRequest(bindingFor(api), 1)).rejects.toThrow(/secondary rate limit/);
    expect(api.calls).toHaveLength(3);
  });
});

function makeForgeThrottle() {
  // The quick limits of the harness (waits in milliseconds).
  return { retryAfterBaseValue: 1 };
}

describe('github forge: GitHub App authentication', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });

  it('signs an App JWT, finds the installation, exchanges it for an installation token and reuses the token', async () => {
    const { api } = repoWithPrs();
    api.appId = 4321;
    api.appPublicKey = publicKey;
    api.installations.set('acme/web', 77);
    const forge = makeForge(api, { auth: { kind: 'app', appId: 4321, privateKey } });
    expect((await forge.getPullRequest(bindingFor(api), 1))?.number).toBe(1);
    expect(await forge.getBranchSha(bindingFor(api), 'main')).toBe(api.branches.get('main'));
    expect(api.log).toEqual([
      'GET /repos/acme/web/installation',
      'POST /app/installations/77/access_tokens',
      'GET /repos/acme/web/pulls/1',
      'GET /repos/acme/web/git/ref/heads/main',
    ]);
    // Both App calls carry a JWT the fake verified against the App's public key and id.
    expect(api.calls[0]!.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(api.calls[1]!.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(api.calls.map((c) => c.status)).toEqual([200, 201, 200, 200]);
    expect(api.calls[2]!.authorization).toBe('token ghs_installation_77_1');
    expect(api.calls[3]!.authorization).toBe('token ghs_installation_77_1');
    expect(api.issuedTokens).toHaveLength(1);
    expect(forge.clients.canCreateCheckRuns).toBe(true);
  });

  it('uses the installation id given at connect time without looking it up', async () => {
    const { api } = repoWithPrs();
    api.appId = 4321;
    api.appPublicKey = publicKey;
    const forge = makeForge(api, { auth: { kind: 'app', appId: 4321, privateKey } });
    await forge.getPullRequest(bindingFor(api, { forgeData: { installationId: 55 } }), 1);
    expect(api.log).toEqual(['POST /app/installations/55/access_tokens', 'GET /repos/acme/web/pulls/1']);
  });

  it('an App not installed on the repository is a forge error saying so', async () => {
    const { api } = repoWithPrs();
    api.appId = 4321;
    api.appPublicKey = publicKey;
    const forge = makeForge(api, { auth: { kind: 'app', appId: 4321, privateKey } });
    await expect(forge.getPullRequest(bindingFor(api), 1)).rejects.toThrow(
      /GitHub App \(id 4321\) is not installed on acme\/web/,
    );
  });

  it('GitHub that cannot be reached is ForgeUnreachableError, for the token exchange as for any other request', async () => {
    const { api } = repoWithPrs();
    const closed = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    const down = { baseUrl: closed, fetch: globalThis.fetch, retry: { retries: 0 } };
    const asApp = makeForge(api, { ...down, auth: { kind: 'app', appId: 4321, privateKey } });
    const asToken = makeForge(api, down);
    for (const call of [
      () => asApp.getPullRequest(bindingFor(api, { forgeData: { installationId: 55 } }), 1), // POST /app/installations/55/access_tokens first
      () => asApp.getPullRequest(bindingFor(api), 1), // GET /repos/acme/web/installation first
      () => asToken.getPullRequest(bindingFor(api), 1),
      () => asToken.getBranchSha(bindingFor(api), 'main'),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForgeUnreachableError);
      expect((err as Error).message).toMatch(/^GitHub cannot be reached: connect ECONNREFUSED/);
    }
  });

  it('a JWT signed with another key is refused by GitHub (the fake checks the signature)', async () => {
    const { api } = repoWithPrs();
    api.appId = 4321;
    api.appPublicKey = publicKey;
    api.installations.set('acme/web', 77);
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const forge = makeForge(api, { auth: { kind: 'app', appId: 4321, privateKey: other.privateKey } });
    await expect(forge.getPullRequest(bindingFor(api), 1)).rejects.toThrow();
    expect(api.calls[0]!.status).toBe(401);
  });
});

describe('github forge: status checks as an App', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });

  it('creates one check run per head and queue and updates it in place, with the details link', async () => {
    const { api, h1 } = repoWithPrs();
    api.appId = 1;
    api.appPublicKey = publicKey;
    const forge = makeForge(api, {
      auth: { kind: 'app', appId: 1, privateKey },
      detailsUrl: 'https://queue.example.com/{owner}/{repo}/{branch}/{pr}',
    });
    const { DEFAULT_QUEUE_CONFIG } = await import('../../../src/engine/config.js');
    const queue = { targetBranch: 'main', config: { ...DEFAULT_QUEUE_CONFIG, commentsEnabled: false } };
    const event = (type: 'pull_request.queued' | 'pull_request.failed') =>
      prEvent(type, 1, type === 'pull_request.failed' ? 'TEST_RUN_TIMEOUT' : null);
    const b = bindingFor(api, { forgeData: { installationId: 9 } });
    await forge.onQueueEvent(b, queue, event('pull_request.queued'));
    await forge.onQueueEvent(b, queue, event('pull_request.failed'));
    expect(api.log.filter((l) => l.includes('check-runs'))).toEqual([
      `GET /repos/acme/web/commits/${h1}/check-runs?check_name=greenline (main)&filter=latest`,
      'POST /repos/acme/web/check-runs',
      'PATCH /repos/acme/web/check-runs/1000',
    ]);
    expect(api.checkRuns).toEqual([
      expect.objectContaining({
        name: 'greenline (main)',
        head_sha: h1,
        status: 'completed',
        conclusion: 'failure',
        output: { title: 'Failed', summary: expect.stringContaining('TEST_RUN_TIMEOUT') },
      }),
    ]);
    expect(api.calls.find((c) => c.method === 'POST' && c.path.endsWith('check-runs'))!.body).toMatchObject({
      details_url: 'https://queue.example.com/acme/web/main/1',
    });
    expect(api.comments).toEqual([]);
  });

  it('the check run and the comment say where the PR stands: position, what it waits on, estimated merge', async () => {
    const { api } = repoWithPrs();
    api.appId = 1;
    api.appPublicKey = publicKey;
    const forge = makeForge(api, { auth: { kind: 'app', appId: 1, privateKey } });
    const { DEFAULT_QUEUE_CONFIG } = await import('../../../src/engine/config.js');
    const outlook = new Map([
      [
        1,
        {
          position: 2,
          waitingOn: { code: 'PRS_AHEAD' as const, message: '1 PR is ahead of it in the queue.' },
          estimatedMergeAt: Date.UTC(2026, 0, 31, 14, 32),
          estimatedMergeRange: { p10: Date.UTC(2026, 0, 31, 14, 20), p90: Date.UTC(2026, 0, 31, 15, 10) },
        },
      ],
    ]);
    await forge.onQueueEvent(
      bindingFor(api, { forgeData: { installationId: 9 } }),
      { targetBranch: 'main', config: { ...DEFAULT_QUEUE_CONFIG, commentsEnabled: true }, outlook },
      prEvent('pull_request.queued'),
    );
    const stands =
      'Position 2 in the queue. Waiting on: 1 PR is ahead of it in the queue. Estimated merge: between 2026-01-31 14:20 and 15:10 UTC, most likely 14:32 (if its tests pass).';
    expect(api.checkRuns[0]!.output).toEqual({ title: 'Queued', summary: expect.stringContaining(stands) });
    expect(api.comments[0]!.body).toContain(stands);
  });

  it('a GitHub failure while showing an event is logged, not thrown (the queue goes on)', async () => {
    const { api } = repoWithPrs();
    api.failNext('GET', /pulls\/1$/, 500, { message: 'boom' }, {}, 10);
    const { DEFAULT_QUEUE_CONFIG } = await import('../../../src/engine/config.js');
    await expect(
      makeForge(api).onQueueEvent(
        bindingFor(api),
        { targetBranch: 'main', config: DEFAULT_QUEUE_CONFIG },
        prEvent('pull_request.queued'),
      ),
    ).resolves.toBeUndefined();
  });
});

describe('github forge: state labels', () => {
  it('stateLabelsEnabled: one greenline:<state> label, swapped as the PR moves; once labelled it keeps being updated', async () => {
    const { api } = repoWithPrs();
    const forge = makeForge(api);
    const { DEFAULT_QUEUE_CONFIG } = await import('../../../src/engine/config.js');
    const config = { ...DEFAULT_QUEUE_CONFIG, statusCheckEnabled: false, commentsEnabled: false };
    const labels = (n: number) => api.pulls.get(n)!.labels.map((l) => l.name);
    const b = bindingFor(api);
    const on = { targetBranch: 'main', config: { ...config, stateLabelsEnabled: true } };
    const off = { targetBranch: 'main', config: { ...config, stateLabelsEnabled: false } };
    api.pulls.get(1)!.labels.push({ name: 'bug' });
    await forge.onQueueEvent(b, on, prEvent('pull_request.queued', 1));
    expect(labels(1)).toEqual(['bug', 'greenline:queued']);
    await forge.onQueueEvent(b, on, prEvent('pull_request.testing', 1));
    expect(labels(1)).toEqual(['bug', 'greenline:testing']);
    // Turned off meanwhile: the labelled PR is still updated, the other one is left alone.
    await forge.onQueueEvent(b, off, prEvent('pull_request.merged', 1));
    expect(labels(1)).toEqual(['bug', 'greenline:merged']);
    await forge.onQueueEvent(b, off, prEvent('pull_request.failed', 2));
    expect(labels(2)).toEqual([]);
    expect(api.log.filter((l) => l.includes('/labels'))).toEqual([
      'POST /repos/acme/web/issues/1/labels',
      'POST /repos/acme/web/issues/1/labels',
      'DELETE /repos/acme/web/issues/1/labels/greenline:queued',
      'POST /repos/acme/web/issues/1/labels',
      'DELETE /repos/acme/web/issues/1/labels/greenline:testing',
    ]);
  });
});
